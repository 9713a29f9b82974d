/**
 * Deep Search's text protocol, as AgentGym's SearchQA server speaks it (agentenv-searchqa):
 * the reset prompt, the `<search>`/`<answer>` action grammar (the first such tag pair in the
 * text is taken), the `<information>` block of retrieved passages, and the server's messages.
 */

/** AgentGym's SearchQA prompt, verbatim up to the question. */
export function promptFor(question: string): string {
  return (
    'You must reason inside <think>...</think> first. If you do not have enough knowledge, issue a <search>...</search> and then STOP. ' +
    'Do not generate <information> or <answer> yet. Wait for external input wrapped in <information>...</information>. ' +
    'After receiving information, reason again in <think>. If confident, output your final answer in <answer>...</answer>. ' +
    'Do not output <answer> before receiving <information> unless you are fully confident. ' +
    'If you find no further external knowledge needed, you can directly provide the answer inside <answer> and </answer>, ' +
    'without detailed illustrations. For example, <answer> Beijing </answer>. Follow this process every time.\n\n' +
    ` Question: ${question.trim()}`
  );
}

export const CORRECT_MESSAGE = 'Congratulations! You have answered the question correctly.';
export const INCORRECT_MESSAGE = 'Sorry, your answer is incorrect. Please try again.';
export const INVALID_MESSAGE =
  'Your previous action is invalid. If you want to search, you should put the query between <search> and </search>. ' +
  'If you want to give the final answer, you should put the answer between <answer> and </answer>. Please try again.';

export type SearchAction =
  | { readonly kind: 'search'; readonly query: string }
  | { readonly kind: 'answer'; readonly answer: string }
  | { readonly kind: 'invalid' };

/** Python's `re.search(r"<(search|answer)>(.*?)</\1>", text, re.DOTALL)`, content stripped. */
const ACTION = /<(search|answer)>([\s\S]*?)<\/\1>/;

export function parseAction(text: string): SearchAction {
  const match = ACTION.exec(text);
  if (!match) return { kind: 'invalid' };
  const content = (match[2] as string).trim();
  return match[1] === 'search' ? { kind: 'search', query: content } : { kind: 'answer', answer: content };
}

/** One retrieved passage: wiki-18 `contents` (`"Title"\ntext`) and the retriever's score. */
export interface Passage {
  readonly contents: string;
  readonly score: number;
}

/** AgentGym's `_passages2string`: the first line of `contents` is the title, the rest the text. */
export function passagesToString(passages: readonly Passage[]): string {
  let out = '';
  passages.forEach((p, i) => {
    const [title, ...rest] = p.contents.split('\n');
    out += `Doc ${i + 1}(Title: ${title ?? ''}) ${rest.join('\n')}\n`;
  });
  return out;
}

/** The observation after a search: `<information>Doc 1(Title: …) …\nDoc 2(…) …</information>`. */
export function informationBlock(passages: readonly Passage[]): string {
  return `<information>${passagesToString(passages).trim()}</information>`;
}
