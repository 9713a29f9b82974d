/**
 * A scripted "model" for the web env's shop questions (price, review count, SKU, stock of a named
 * product), for tests and measurements of the LLM agent against a scripted OpenAI-compatible
 * server. It reads only what a model is sent, the newest user turn, and answers in WebArena's
 * contract: on a product page it stops with the fact asked for, else it clicks a link named like
 * the product, else it searches for the product; any other objective it stops with N/A. A
 * `flaw` makes it answer wrong, or reply once without an action block.
 *
 * @example
 * const server = await startFaultServer({ content: (request) => scriptedWebReply(lastUserTurn(request)) });
 */
import { WEB_ANSWER_PHRASE } from '../../envs/web/prompt.ts';
import type { SeenRequest } from '../../bench/chat-fault-server.ts';

export type WebPlayerFlaw = 'none' | 'wrong-answer' | 'no-block-first';

/** The newest user turn and the number of replies before it, from a chat request body. */
export function lastUserTurn(request: SeenRequest): { text: string; turn: number } {
  const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
  const text = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  return { text, turn: messages.filter((m) => m.role === 'assistant').length };
}

const reply = (thought: string, action: string) => `Let's think step by step. ${thought} ${WEB_ANSWER_PHRASE} \`\`\`${action}\`\`\``;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The fact an objective asks for, read off a product page's tree. */
const FACTS: readonly { readonly ask: RegExp; readonly read: RegExp }[] = [
  { ask: /^What is the price of /, read: /StaticText 'Price: '\n\s*\[\d+\] StaticText '([^']+)'/ },
  { ask: /^How many customer reviews /, read: /heading 'Customer reviews \((\d+)\)'/ },
  { ask: /^What is the SKU of /, read: /StaticText 'SKU: ([^']+)'/ },
  { ask: /^How many units of /, read: /StaticText 'In stock \((\d+) left\)'/ },
];

export function scriptedWebReply(userTurn: string, turn: number, flaw: (objective: string) => WebPlayerFlaw = () => 'none'): string {
  // The first turn holds the framing (with example pages) before the task's page: read the last page.
  const page = userTurn.slice(Math.max(0, userTurn.lastIndexOf('OBSERVATION:\n')));
  const objective = /\nOBJECTIVE: ([^\n]*)/.exec(page)?.[1] ?? '';
  const url = /\nURL: ([^\n]*)/.exec(page)?.[1] ?? '';
  const mode = flaw(objective);
  if (mode === 'no-block-first' && turn === 0) return 'I will look for the search box and type the product name into it.';
  const product = /"([^"]+)"/.exec(objective)?.[1];
  const fact = FACTS.find((f) => f.ask.test(objective));
  if (product === undefined || fact === undefined) return reply('I was not written for this objective.', 'stop [N/A]');
  if (/\/product\/\d+/.test(url)) {
    const value = fact.read.exec(page)?.[1];
    if (value === undefined) return reply('The page does not show what I need.', 'stop [N/A]');
    return reply(`The page shows ${value}.`, `stop [${mode === 'wrong-answer' ? `${value}9` : value}]`);
  }
  const quoted = product.includes("'") ? `"${escapeRe(product)}"` : `'${escapeRe(product)}'`;
  const link = new RegExp(`\\[(\\d+)\\] link ${quoted}`).exec(page)?.[1];
  if (link !== undefined) return reply(`The product is linked as [${link}].`, `click [${link}]`);
  const search = /\[(\d+)\] searchbox 'Search products'/.exec(page)?.[1];
  if (search !== undefined) return reply(`I search for the product in box [${search}].`, `type [${search}] [${product}] [1]`);
  return reply('I cannot find a way to the product.', 'stop [N/A]');
}
