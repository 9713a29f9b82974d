/**
 * Reading an action out of a model's reply in AgentGym's Thought/Action contract.
 *
 * AgentGym's BabyAI and TextCraft clients (agentenv/agentenv/envs/babyai.py, textcraft.py) find
 * every `Action:` in the reply (case-sensitive, anywhere, inside the thought too); more than one
 * is an error turn, none sends an empty action; the action is what follows the marker, past any
 * whitespace and line breaks, up to the end of that line; then every character outside
 * `[A-Za-z0-9, ]` is deleted and spaces are collapsed. We keep those rules, and call zero or
 * several markers a format error the model is told about. Two additions of ours: end-of-sequence
 * markers (`</s>`, `<|im_end|>` …) are cut from the end of the reply first (AgentGym's SciWorld
 * client cuts `</s>`; its character filter would otherwise turn `forward</s>` into `forwards`),
 * and an action written on its own line inside a code fence is read from the fence.
 */

export type FormatError = 'no_action' | 'multiple_actions' | 'no_tag';

/**
 * A model reply read by AgentGym's Thought/Action rules: the action, or the format error the model
 * is told about on its next turn.
 */
export type ParsedReply =
  | { readonly ok: true; readonly action: string }
  | {
      readonly ok: false;
      readonly error: FormatError;
      /** What the model is told on its next user turn, before the env's observation. */
      readonly message: string;
      /** The text the env is sent as this turn's action (the env rejects it as an invalid action; the turn counts). */
      readonly envAction: string;
    };

/**
 * How the action text is cleaned once found. `agentgym-chars`: AgentGym's BabyAI/TextCraft filter
 * (only letters, digits, commas and spaces survive). `plain`: trimmed, with wrapping quotes,
 * backticks and markdown emphasis removed; for envs whose names carry other characters
 * (SciWorld's "blue-green paint") and parse leniently themselves.
 */
export type ActionCleanup = 'agentgym-chars' | 'plain';

export const ACTION_MARKER = 'Action:';

/**
 * What the env receives for a reply without a usable action: the empty action, as AgentGym's
 * clients send when a reply has no `Action:`. Every built-in env rejects it as invalid
 * (tests/policy/llm/parse-reply.test.ts steps each one with it).
 */
export const NO_ACTION_ENV_ACTION = '';

export const NO_ACTION_MESSAGE =
  'Format error: your last reply had no "Action:" line, so no action was taken. ' +
  'Write your reasoning after "Thought:", then exactly one line "Action: <action>".';

export const MULTIPLE_ACTIONS_MESSAGE =
  'Format error: your last reply wrote "Action:" more than once, so no action was taken. ' +
  'Give exactly one "Action:" per reply, and do not write "Action:" inside your thought.';

const END_MARKERS = /(?:\s*(?:<\/s>|<\|im_end\|>|<\|eot_id\|>|<\|endoftext\|>|<\|end\|>))+\s*$/;
const FENCE_OPEN = /^(`{3,}|~{3,})[\w-]*$/;

/** The reply's action under the Thought/Action contract, or the format error it makes. */
export function parseThoughtAction(reply: string, cleanup: ActionCleanup): ParsedReply {
  const text = reply.replace(END_MARKERS, '');
  const first = text.indexOf(ACTION_MARKER);
  if (first < 0) return formatError('no_action');
  if (text.indexOf(ACTION_MARKER, first + ACTION_MARKER.length) >= 0) return formatError('multiple_actions');
  const raw = actionLine(text.slice(first + ACTION_MARKER.length));
  const action = cleanup === 'agentgym-chars' ? agentgymChars(raw) : plain(raw);
  return action === '' ? formatError('no_action') : { ok: true, action };
}

/** `Thought: …` then `Action: …`, written so that `parseThoughtAction` reads `action` back. */
export function formatThoughtAction(thought: string, action: string): string {
  // A marker inside the thought would make the reply a multiple-action error.
  const safeThought = thought.split(ACTION_MARKER).join('Action -').replace(/\s*\n\s*/g, ' ').trim();
  return `Thought: ${safeThought}\nAction: ${action}`;
}

function formatError(error: 'no_action' | 'multiple_actions'): ParsedReply {
  const message = error === 'no_action' ? NO_ACTION_MESSAGE : MULTIPLE_ACTIONS_MESSAGE;
  return { ok: false, error, message, envAction: NO_ACTION_ENV_ACTION };
}

/** After the marker: skip whitespace (line breaks too), take the rest of that line. */
function actionLine(after: string): string {
  const lines = after.replace(/^\s+/, '').split('\n');
  const line = (lines[0] ?? '').trim();
  if (!FENCE_OPEN.test(line)) return line;
  // ```\naction\n```: the first non-empty line inside the fence.
  const fence = line.match(/^(`{3,}|~{3,})/)?.[1] ?? '```';
  for (const inner of lines.slice(1)) {
    const t = inner.trim();
    if (t.startsWith(fence)) return '';
    if (t !== '') return t;
  }
  return '';
}

function agentgymChars(raw: string): string {
  return raw.replace(/[^A-Za-z0-9, ]+/g, '').split(/\s+/).filter((w) => w !== '').join(' ');
}

function plain(raw: string): string {
  let s = raw.trim();
  for (;;) {
    const unwrapped = s.replace(/^(\*\*|__|[*_`"'])(.*)\1$/s, '$2').trim();
    if (unwrapped === s) break;
    s = unwrapped;
  }
  // "**Action:** go to kitchen" leaves "** go to kitchen".
  return s.replace(/^[*_]+\s*/, '').replace(/\s*[*_]+$/, '').trim();
}
