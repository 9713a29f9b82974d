/**
 * `--episodes N` past the size of the split: an error, unless `--repeat` says the tasks may
 * repeat, and then the command says how often they do. A larger N never silently runs the same
 * tasks again (a success rate over repeats is not one over more tasks).
 */

export interface EpisodesAgainstSplit {
  readonly episodes: number;
  /** Tasks in the split. */
  readonly tasks: number;
  readonly split: string;
  readonly env: string;
  readonly repeat: boolean;
}

/** Throws when N is past the split without `repeat`; with it, the note to print (else undefined). */
export function checkEpisodesAgainstSplit(c: EpisodesAgainstSplit): string | undefined {
  if (c.tasks === 0) throw new Error(`env "${c.env}" has no ${c.split} tasks${c.split === 'test-templates' ? ' (held-out templates: the web env has them)' : ''}`);
  if (c.episodes <= c.tasks) return undefined;
  if (!c.repeat) {
    throw new Error(
      `--episodes ${c.episodes} is past the ${c.tasks} tasks of the ${c.split} split of ${c.env}; ` +
        `give --episodes ${c.tasks} or less, or add --repeat to run the tasks again in order`,
    );
  }
  const full = Math.floor(c.episodes / c.tasks);
  const extra = c.episodes % c.tasks;
  const count = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);
  const times = extra === 0 ? `each runs ${count(full)}` : `the first ${extra} run ${count(full + 1)}, the rest ${count(full)}`;
  return `--repeat: ${c.episodes} episodes over the ${c.tasks} tasks of the ${c.split} split; tasks repeat (${times})`;
}
