/**
 * An LLM judge for free-text answers (WebArena's fuzzy_match, helper_functions.llm_fuzzy_match):
 * the question, the reference answer and the agent's answer go to a chat model, which concludes
 * correct / incorrect / partially correct; only "correct" scores. envs/ knows no LLM client, so
 * the chat call is handed in (the CLI's `--judge openai:MODEL` builds one from policy/llm).
 */

export interface JudgeInput {
  /** The task's objective, as the agent read it. */
  readonly question: string;
  readonly reference: string;
  readonly answer: string;
}

export interface AnswerJudge {
  /** Recorded with every verdict it gives, e.g. `openai:gpt-4o-mini`. */
  readonly name: string;
  /** Whether the answer means the reference; a failed call throws (the episode is not scored). */
  grade(input: JudgeInput): Promise<boolean>;
}

export interface JudgeMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

/** One chat completion at temperature 0: the messages in, the reply's text out. */
export type JudgeChat = (messages: readonly JudgeMessage[]) => Promise<string>;

/** WebArena's grading request, in our words, plus: an answer listing several candidates is incorrect. */
export function judgeMessages(input: JudgeInput): JudgeMessage[] {
  const user = [
    'Help a teacher grade a student\'s answer to a question. The student may phrase the answer differently; judge whether it means the same as the reference answer.',
    'An answer that gives several candidate answers, or hedges between them, is incorrect. The string \'N/A\' means "the task cannot be done".',
    `question: ${input.question}`,
    `reference answer: ${input.reference}`,
    `student answer: ${input.answer}`,
    'Conclude the judgement with one of: correct, incorrect, partially correct.',
  ].join('\n');
  return [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: user }];
}

/** The judge's conclusion: "correct" alone scores; "incorrect", "partially correct" or neither does not. */
export function readJudgement(reply: string): boolean {
  const text = reply.toLowerCase();
  if (/\bincorrect\b|partially correct|not correct/.test(text)) return false;
  return /\bcorrect\b/.test(text);
}

export function createChatJudge(name: string, chat: JudgeChat): AnswerJudge {
  return {
    name,
    async grade(input) {
      return readJudgement(await chat(judgeMessages(input)));
    },
  };
}
