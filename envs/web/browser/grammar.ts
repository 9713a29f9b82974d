/**
 * WebArena's action grammar (reference §3), parsed to a typed action or a parse error that the
 * env shows as the next observation. Follows WebArena's `create_id_based_action`: the action
 * name is the text before the first `[`, arguments are bracketed, `type` without an Enter flag
 * presses Enter (`[1]`), `scroll` takes `up` or `down`, and `stop` without an answer stops with
 * an empty answer. `select [id] [option]` is ours (WebArena's id-based grammar has none; BrowserGym
 * has `select_option`): it chooses an option of a drop-down by its label, as `type` on one does.
 */

export type WebAction =
  | { readonly kind: 'click'; readonly id: string }
  | { readonly kind: 'type'; readonly id: string; readonly text: string; readonly pressEnter: boolean }
  | { readonly kind: 'hover'; readonly id: string }
  | { readonly kind: 'select'; readonly id: string; readonly option: string }
  | { readonly kind: 'press'; readonly keys: string }
  | { readonly kind: 'scroll'; readonly direction: 'up' | 'down' }
  | { readonly kind: 'new_tab' }
  | { readonly kind: 'tab_focus'; readonly index: number }
  | { readonly kind: 'close_tab' }
  | { readonly kind: 'goto'; readonly url: string }
  | { readonly kind: 'go_back' }
  | { readonly kind: 'go_forward' }
  | { readonly kind: 'stop'; readonly answer: string };

export type WebActionKind = WebAction['kind'];

export type ParseResult = { readonly ok: true; readonly action: WebAction } | { readonly ok: false; readonly error: string };

/** The grammar, one line per action, for prompts and error messages. */
export const WEB_ACTION_GRAMMAR: readonly string[] = [
  'click [id]',
  'type [id] [content] [0|1]',
  'hover [id]',
  'select [id] [option]',
  'press [key_comb]',
  'scroll [down|up]',
  'new_tab',
  'tab_focus [tab_index]',
  'close_tab',
  'goto [url]',
  'go_back',
  'go_forward',
  'stop [answer]',
];

const USAGE: Readonly<Record<WebActionKind, string>> = {
  click: 'click [id]',
  type: 'type [id] [content] [0|1]',
  hover: 'hover [id]',
  select: 'select [id] [option]',
  press: 'press [key_comb]',
  scroll: 'scroll [down|up]',
  new_tab: 'new_tab',
  tab_focus: 'tab_focus [tab_index]',
  close_tab: 'close_tab',
  goto: 'goto [url]',
  go_back: 'go_back',
  go_forward: 'go_forward',
  stop: 'stop [answer]',
};

const fail = (error: string): ParseResult => ({ ok: false, error });
const ok = (action: WebAction): ParseResult => ({ ok: true, action });
const usage = (kind: WebActionKind, text: string): ParseResult => fail(`Invalid action '${text}': expected '${USAGE[kind]}'.`);

/**
 * The action inside the first ``` code block of a model's reply (WebArena's prompts ask for
 * one), or the whole reply trimmed when it has no code block.
 */
export function extractWebAction(reply: string): string {
  const block = /```(?:[a-z]*\n)?([\s\S]*?)```/.exec(reply);
  return (block ? block[1]! : reply).trim();
}

/** Parses one action; never throws. */
export function parseWebAction(input: string): ParseResult {
  const text = input.trim();
  if (!text) return fail(`Empty action. Actions: ${WEB_ACTION_GRAMMAR.join(', ')}.`);
  const name = (text.includes('[') ? text.slice(0, text.indexOf('[')) : text.split(/\s+/)[0]!).trim();
  switch (name) {
    case 'click':
    case 'hover': {
      const m = /^(?:click|hover) ?\[(\d+)\]$/.exec(text);
      return m ? ok({ kind: name, id: m[1]! }) : usage(name, text);
    }
    case 'type': {
      const withFlag = /\[[01]\]$/.test(text) && /^type ?\[\d+\] ?\[[\s\S]*\] ?\[[01]\]$/.test(text) ? text : `${text} [1]`;
      const m = /^type ?\[(\d+)\] ?\[([\s\S]*)\] ?\[([01])\]$/.exec(withFlag);
      return m ? ok({ kind: 'type', id: m[1]!, text: m[2]!, pressEnter: m[3] === '1' }) : usage('type', text);
    }
    case 'select': {
      const m = /^select ?\[(\d+)\] ?\[([\s\S]*)\]$/.exec(text);
      return m && m[2]!.trim() ? ok({ kind: 'select', id: m[1]!, option: m[2]!.trim() }) : usage('select', text);
    }
    case 'press': {
      const m = /^press ?\[(.+)\]$/.exec(text);
      return m && m[1]!.trim() ? ok({ kind: 'press', keys: m[1]!.trim() }) : usage('press', text);
    }
    case 'scroll': {
      const m = /^scroll ?\[?(up|down)\]?$/i.exec(text);
      return m ? ok({ kind: 'scroll', direction: m[1]!.toLowerCase() as 'up' | 'down' }) : usage('scroll', text);
    }
    case 'tab_focus': {
      const m = /^tab_focus ?\[(\d+)\]$/.exec(text);
      return m ? ok({ kind: 'tab_focus', index: Number(m[1]) }) : usage('tab_focus', text);
    }
    case 'goto': {
      const m = /^goto ?\[(.+)\]$/.exec(text);
      return m && m[1]!.trim() ? ok({ kind: 'goto', url: m[1]!.trim() }) : usage('goto', text);
    }
    case 'new_tab':
    case 'close_tab':
    case 'go_back':
    case 'go_forward':
      return text === name ? ok({ kind: name }) : usage(name, text);
    case 'stop': {
      if (text === 'stop') return ok({ kind: 'stop', answer: '' });
      const m = /^stop ?\[([\s\S]*)\]$/.exec(text);
      return m ? ok({ kind: 'stop', answer: m[1]!.trim() }) : usage('stop', text);
    }
    default:
      return fail(`Unknown action '${name}'. Actions: ${WEB_ACTION_GRAMMAR.join(', ')}.`);
  }
}

/** The action written back in the grammar (for PREVIOUS ACTION and logs). */
export function formatWebAction(action: WebAction): string {
  switch (action.kind) {
    case 'click':
    case 'hover':
      return `${action.kind} [${action.id}]`;
    case 'type':
      return `type [${action.id}] [${action.text}] [${action.pressEnter ? 1 : 0}]`;
    case 'select':
      return `select [${action.id}] [${action.option}]`;
    case 'press':
      return `press [${action.keys}]`;
    case 'scroll':
      return `scroll [${action.direction}]`;
    case 'tab_focus':
      return `tab_focus [${action.index}]`;
    case 'goto':
      return `goto [${action.url}]`;
    case 'stop':
      return `stop [${action.answer}]`;
    default:
      return action.kind;
  }
}
