/**
 * The LLM judge WebArena's `fuzzy_match` needs, as an injectable function: actorgym does not pick
 * a model for you. Without one, tasks whose reference answer is fuzzy are skipped when loaded
 * (with the reason); the unachievable ones (`fuzzy_match: "N/A"`) are scored by an exact `N/A`.
 * `webArenaJudgeMessages` and `readJudgeVerdict` give a judge over any chat model WebArena's
 * questions and its reading of the reply.
 */

/** What the judge is asked: is the answer the reference (fuzzy), or does its reason match why the task is unachievable? */
export type WebArenaJudgeRequest =
  | { readonly kind: 'fuzzy_match'; readonly intent: string; readonly reference: string; readonly answer: string }
  | { readonly kind: 'unachievable'; readonly intent: string; readonly reason: string; readonly answer: string };

/** True when the answer passes. A thrown error ends the episode as an env failure (aborted, not scored). */
export type WebArenaJudge = (request: WebArenaJudgeRequest) => Promise<boolean>;

export interface JudgeMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

/** The chat messages WebArena sends its judge for `request` (temperature 0 in WebArena). */
export function webArenaJudgeMessages(request: WebArenaJudgeRequest): JudgeMessage[] {
  const user =
    request.kind === 'fuzzy_match'
      ? [
          'Help a teacher grade a student\'s answer to a question. The student may phrase it differently; decide whether the answer is semantically equivalent to the reference answer.',
          `question: ${request.intent}`,
          `reference answer: ${request.reference}`,
          "every 'N/A' you see is a special sequence meaning 'not achievable'",
          `student answer: ${request.answer}`,
          'Conclude the judgement by correct/incorrect/partially correct.',
        ].join('\n')
      : [
          `task: ${request.intent}`,
          `actual unachievable reason: ${request.reason}`,
          `reported unachievable reason: ${request.answer}`,
          "The task above cannot be achieved for the actual reason given. Someone tried it, failed, and reported a reason. If the reported reason agrees with the actual one, even implicitly, reply 'same'; otherwise reply 'different'.",
        ].join('\n');
  return [
    { role: 'system', content: 'You are a helpful assistant' },
    { role: 'user', content: user },
  ];
}

/** WebArena's reading of a judge reply; a reply with neither verdict is an error. */
export function readJudgeVerdict(kind: WebArenaJudgeRequest['kind'], reply: string): boolean {
  const text = reply.toLowerCase();
  if (kind === 'fuzzy_match') {
    if (text.includes('partially correct') || text.includes('incorrect')) return false;
    if (text.includes('correct')) return true;
  } else {
    if (text.includes('different')) return false;
    if (text.includes('same')) return true;
  }
  throw new Error(`the judge's reply has no verdict (${kind === 'fuzzy_match' ? 'correct/incorrect' : 'same/different'}): ${reply.slice(0, 200)}`);
}

/** One chat completion (temperature 0 in WebArena): the messages in, the reply's text out. */
export type WebArenaJudgeChat = (messages: readonly JudgeMessage[]) => Promise<string>;

/**
 * A judge over any chat model: WebArena's questions (`webArenaJudgeMessages`) and its reading of the
 * reply (`readJudgeVerdict`). A reply without a verdict throws, so the episode is not scored.
 */
export function webArenaJudgeFromChat(chat: WebArenaJudgeChat): WebArenaJudge {
  return async (request) => readJudgeVerdict(request.kind, await chat(webArenaJudgeMessages(request)));
}
