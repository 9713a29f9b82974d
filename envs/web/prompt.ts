/**
 * Web navigation: our words after WebArena's chain-of-thought prompt (prompts/state_action_agent
 * p_cot_id_actree_2s: the information the agent gets, the action list, the rules, two examples),
 * for the web env (this env) and a WebArena env reached by AgentGym's name. The observation is
 * WebArena's layout, `OBSERVATION:\n{tabs}\n\n{tree}\nURL: …\nOBJECTIVE: …\nPREVIOUS ACTION: …`.
 *
 * A reply is read as WebArena reads it: the first ``` … ``` block is the action (extractWebAction
 * in browser/grammar.ts); a reply without one is a format error. A page is up to ~16k
 * characters, so past turns are sent condensed: a page keeps its tab titles, URL and the env's
 * message, a reply its action. WebArena itself sends only the current page (its previous action
 * is in the observation); the condensed past adds the path taken at a few tokens a turn.
 */
import type { CondenseRules, ParsedReply, PromptOptions, PromptTemplate } from '../contract.ts';
import { NO_ACTION_ENV_ACTION } from '../prompt/parse-reply.ts';
import { TURN_SEPARATOR } from '../prompt/render-turns.ts';
import { createPromptTemplate } from '../prompt/template.ts';
import { WEB_ACTION_GRAMMAR, extractWebAction } from './browser/grammar.ts';

/** WebArena's answer phrase: the action follows it inside a code block. */
export const WEB_ANSWER_PHRASE = 'In summary, the next action I will perform is';

export const WEB_NO_ACTION_MESSAGE =
  'Format error: your last reply had no action inside ``` ```, so no action was taken. ' +
  `End every reply with "${WEB_ANSWER_PHRASE} \`\`\`<action>\`\`\`", e.g. "${WEB_ANSWER_PHRASE} \`\`\`click [12]\`\`\`".`;

/** What each action of the grammar does, in the grammar's order. */
const ACTION_HELP: Readonly<Record<string, string>> = {
  'click [id]': 'click the element with this id.',
  'type [id] [content] [0|1]': 'type the content into the field with this id, replacing its text; Enter is pressed after it unless the last argument is 0.',
  'hover [id]': 'hover over the element with this id.',
  'press [key_comb]': 'press a key combination, e.g. Enter or Control+a.',
  'scroll [down|up]': 'scroll the page; the tree lists only what is on screen.',
  new_tab: 'open a new, empty tab.',
  'tab_focus [tab_index]': 'switch to the tab with this index.',
  close_tab: 'close the current tab.',
  'goto [url]': 'open a URL.',
  go_back: 'go to the previous page.',
  go_forward: 'go to the next page (after a go_back).',
  'stop [answer]': 'end the task. When the objective asks for information, put only the answer in the brackets, in the form the objective asks for (a number, a price, a date as YYYY-MM-DD, a name exactly as the page shows it); an answer that lists several candidates is scored wrong. When it asks you to open a page or to change something, do exactly that and nothing else, then stop with empty brackets. If the task cannot be done, answer N/A. The task is scored only when you stop.',
};

const actionLines = WEB_ACTION_GRAMMAR.map((a) => `- ${a}: ${ACTION_HELP[a] ?? ''}`.trimEnd());

/** One example turn, in the env's layout, and the reply to it. */
const EXAMPLES: readonly (readonly [string, string])[] = [
  [
    [
      'OBSERVATION:',
      "Tab 0 (current): Oakmere Dish Rack, Navy | Corner Market",
      '',
      "[244] RootWebArea 'Oakmere Dish Rack, Navy | Corner Market' focused: True",
      "\t[276] heading 'Oakmere Dish Rack, Navy'",
      "\t[351] StaticText 'Price: '",
      "\t[352] StaticText '$89.95'",
      "\t[296] button 'Add to Cart'",
      'URL: http://shop.example/product/60',
      'OBJECTIVE: What is the price of "Oakmere Dish Rack, Navy" in the shop? Answer with the price only.',
      'PREVIOUS ACTION: click [213]',
    ].join('\n'),
    "Let's think step by step. This is the page of the Oakmere Dish Rack, Navy, the product the objective asks about, and its price is $89.95. I have the answer, so I stop with the price only. " +
      `${WEB_ANSWER_PHRASE} \`\`\`stop [$89.95]\`\`\``,
  ],
  [
    [
      'OBSERVATION:',
      'Tab 0 (current): Home | Postboard',
      '',
      "[2] RootWebArea 'Home | Postboard' focused: True",
      "\t[4] searchbox 'Search posts'",
      "\t[24] button 'Search'",
      "\t[31] link 'Gardening'",
      'URL: http://forum.example/',
      'OBJECTIVE: Open the post titled "Tomatoes in pots" on the forum.',
      'PREVIOUS ACTION: None',
    ].join('\n'),
    "Let's think step by step. The post is not on this page, but there is a search box with id [4]. I search for the title and press Enter after typing. " +
      `${WEB_ANSWER_PHRASE} \`\`\`type [4] [Tomatoes in pots] [1]\`\`\``,
  ],
];

export const WEB_INTRO = [
  'You are an autonomous agent navigating a web browser. You will be given a web task, and you accomplish it by issuing actions one at a time.',
  '',
  'What you see each turn:',
  '- the open tabs, and the current page as an accessibility tree: one element per line, each with an id in brackets, e.g. "[12] link \'My Orders\'";',
  '- the page URL;',
  '- the objective: the task you are trying to complete;',
  '- the previous action: the action you just performed, which helps you track your progress. When an action could not be done, a message above the page says why.',
  'Earlier turns are shown shortened: the title and URL of each page you saw, and the action you took.',
  '',
  'The actions:',
  ...actionLines,
  '',
  'Rules:',
  '1. Issue only an action that is valid for the current page: use an id that the current tree shows.',
  '2. Issue one action per reply.',
  '3. Reason step by step, as in the examples, then give the action.',
  `4. End your reply with "${WEB_ANSWER_PHRASE}" followed by the action inside \`\`\` \`\`\`, e.g. "${WEB_ANSWER_PHRASE} \`\`\`click [12]\`\`\`". The first \`\`\` \`\`\` block of a reply is taken as the action.`,
  '5. Issue stop when you think the objective is achieved, and write nothing after it.',
  '',
  ...EXAMPLES.flatMap(([observation, reply], i) => [`Example ${i + 1}:`, observation, '', 'Reply:', reply, '']),
  'Your task:',
].join('\n');

/** WebArena's extraction: the first ``` … ``` block; none (or an empty one) is a format error. */
export function parseWebReply(reply: string): ParsedReply {
  const action = /```[\s\S]*?```/.test(reply) ? extractWebAction(reply) : '';
  if (action === '') return { ok: false, error: 'no_action', message: WEB_NO_ACTION_MESSAGE, envAction: NO_ACTION_ENV_ACTION };
  return { ok: true, action };
}

/** A reply in WebArena's contract that `parseWebReply` reads `action` back from. */
export function formatWebReply(thought: string, action: string): string {
  // A code fence in the thought would be taken as the action.
  const safeThought = thought.replace(/`{3,}/g, "'").trim();
  return `${safeThought === '' ? '' : `${safeThought} `}${WEB_ANSWER_PHRASE} \`\`\`${action}\`\`\``;
}

/** Replies the model wrote that named no action are kept, cut to this many characters. */
const BAD_REPLY_CHARS = 400;

/**
 * A past page as its message (when the env gave one), tab titles and URL; a text that is not in
 * WebArena's layout is kept whole.
 */
export function condenseWebObservation(observation: string): string {
  const page = /^OBSERVATION:\n([\s\S]*?)\nURL: ([^\n]*)\nOBJECTIVE: /.exec(observation);
  if (!page) return observation;
  const body = page[1] as string;
  const tabs = /(?:^|\n)(Tab \d+[^\n]*)/.exec(body);
  const message = tabs && tabs.index > 0 ? body.slice(0, tabs.index).trim() : '';
  return ['OBSERVATION (page omitted):', ...(message ? [message] : []), ...(tabs ? [tabs[1] as string] : []), `URL: ${page[2]}`].join('\n');
}

function condenseRules(intro: string, notes: readonly string[]): CondenseRules {
  return {
    user(text, first) {
      if (first && text.startsWith(intro + TURN_SEPARATOR)) return intro + TURN_SEPARATOR + condenseWebObservation(text.slice(intro.length + TURN_SEPARATOR.length));
      const note = notes.find((n) => text.startsWith(n + TURN_SEPARATOR));
      if (note !== undefined) return note + TURN_SEPARATOR + condenseWebObservation(text.slice(note.length + TURN_SEPARATOR.length));
      return condenseWebObservation(text);
    },
    assistant(text) {
      const parsed = parseWebReply(text);
      if (parsed.ok) return formatWebReply('', parsed.action);
      return text.length <= BAD_REPLY_CHARS ? text : `${text.slice(0, BAD_REPLY_CHARS)} …`;
    },
  };
}

export function webPrompt(options: PromptOptions = {}): PromptTemplate {
  const notes = [WEB_NO_ACTION_MESSAGE];
  const template = createPromptTemplate({ family: 'web', intro: WEB_INTRO, notes, parseReply: parseWebReply, formatReply: formatWebReply }, options);
  return { ...template, condensePast: condenseRules(WEB_INTRO, notes) };
}
