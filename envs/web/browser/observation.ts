/**
 * What the agent sees, in WebArena's prompt layout (reference §3):
 * `OBSERVATION:\n{tabs}\n\n{tree}\nURL: {url}\nOBJECTIVE: {objective}\nPREVIOUS ACTION: {prev}`.
 */

export interface WebTab {
  readonly index: number;
  readonly title: string;
  readonly current: boolean;
}

export interface WebObservation {
  /** The accessibility tree text, `[id] role 'name' ...` per line. */
  readonly tree: string;
  readonly url: string;
  readonly title: string;
  readonly tabs: readonly WebTab[];
  /** True when the tree was cut at the character budget (the text says so too). */
  readonly truncated: boolean;
}

/** WebArena's tab header: `Tab 0 (current): Title | Tab 1: Other`. */
export function formatTabs(tabs: readonly WebTab[]): string {
  return tabs.map((tab) => `Tab ${tab.index}${tab.current ? ' (current)' : ''}: ${tab.title}`).join(' | ');
}

/**
 * The full observation text for one turn. `previousAction` is `None` on the first turn, as in
 * WebArena; `message` (an action's error, e.g. an unknown id) goes before the page.
 */
export function formatWebObservation(observation: WebObservation, objective: string, previousAction?: string, message?: string): string {
  const note = message ? `${message}\n\n` : '';
  return (
    `OBSERVATION:\n${note}${formatTabs(observation.tabs)}\n\n${observation.tree}\n` +
    `URL: ${observation.url}\nOBJECTIVE: ${objective}\nPREVIOUS ACTION: ${previousAction ?? 'None'}`
  );
}
