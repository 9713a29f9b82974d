/**
 * How a user turn is laid out, and read back. The policy server hands our transformer exactly
 * the env's observations, so every part we add around an observation must come off again:
 *
 *   first turn:  INTRO + "\n\n" + OBSERVATION [+ LIST]
 *   later turn:  [NOTE + "\n\n"] + OBSERVATION [+ LIST]
 *   LIST:        "\n\n" + "Actions you can take now: " + JSON array of strings, one line
 *
 * INTRO is the template's fixed framing and NOTE one of its fixed format-error messages, so both
 * are recognised exactly. LIST uses a header no env writes (BabyAI writes its own
 * `Available actions: [...]` line, which stays part of the observation), and is appended only
 * when the observation shows no list of its own.
 */
import type { ReadTurn } from '../contract.ts';

export const TURN_SEPARATOR = '\n\n';
export const ACTION_LIST_HEADER = 'Actions you can take now:';

export interface TurnParts {
  /** The template's framing (first turn only). */
  readonly intro?: string;
  /** A format-error message (later turns only). */
  readonly note?: string;
  readonly observation: string;
  readonly availableActions?: readonly string[];
  /** Append the actions when the observation does not show them. */
  readonly listActions: boolean;
}

export function renderTurn(parts: TurnParts): string {
  const { intro, note, observation, availableActions, listActions } = parts;
  let text = '';
  if (intro !== undefined) text += intro + TURN_SEPARATOR;
  if (note !== undefined && note !== '') text += note + TURN_SEPARATOR;
  text += observation;
  if (listActions && availableActions !== undefined && availableActions.length > 0 && envActionList(observation) === undefined) {
    text += TURN_SEPARATOR + renderActionList(availableActions);
  }
  return text;
}

/**
 * The observation and shown actions of a turn `renderTurn` wrote with this `intro` (first turn)
 * or one of these `notes` (later turns); undefined when a first turn does not open with `intro`.
 */
export function readTurn(text: string, options: { readonly intro?: string; readonly notes?: readonly string[] }): ReadTurn | undefined {
  let rest = text;
  if (options.intro !== undefined) {
    const head = options.intro + TURN_SEPARATOR;
    if (!rest.startsWith(head)) return undefined;
    rest = rest.slice(head.length);
  } else {
    const note = options.notes?.find((n) => rest.startsWith(n + TURN_SEPARATOR));
    if (note !== undefined) rest = rest.slice(note.length + TURN_SEPARATOR.length);
  }
  const appended = splitAppendedList(rest);
  if (appended !== undefined) return appended;
  const own = envActionList(rest);
  return own === undefined ? { observation: rest } : { observation: rest, availableActions: own };
}

/** The list an env prints at the end of its own observation (`Available actions: ["a", "b"]`, BabyAI). */
export function envActionList(observation: string): string[] | undefined {
  const line = /(?:^|\n)Available actions: (\[[^\n]*\])\s*$/.exec(observation)?.[1];
  return line === undefined ? undefined : stringArray(line);
}

function renderActionList(actions: readonly string[]): string {
  return `${ACTION_LIST_HEADER} [${actions.map((a) => JSON.stringify(a)).join(', ')}]`;
}

function splitAppendedList(text: string): ReadTurn | undefined {
  const at = text.lastIndexOf(TURN_SEPARATOR + ACTION_LIST_HEADER + ' [');
  if (at < 0) return undefined;
  const list = text.slice(at + TURN_SEPARATOR.length + ACTION_LIST_HEADER.length + 1);
  if (list.includes('\n')) return undefined;
  const actions = stringArray(list);
  return actions === undefined || actions.length === 0 ? undefined : { observation: text.slice(0, at), availableActions: actions };
}

/** A JSON array of strings; BabyAI's list is one when no name holds a quote or backslash. */
function stringArray(text: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  } catch {
    // Not JSON: fall back to the quoted names, as the env wrote them.
  }
  const names = [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1] as string);
  return names.length > 0 ? names : undefined;
}
