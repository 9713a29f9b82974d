/**
 * Pieces shared by the hand-written BabyAI policies (bench/reactive-policy.ts and
 * bench/memory-policy.ts), so that the two differ only in what they remember.
 */

/** A seeded LCG in [0, 1): the heuristics' draws, reproducible run to run. */
export function lcg(seed = 12345): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

export interface GoalObject {
  readonly color: string | undefined;
  readonly type: string;
}

/** The available actions starting with `prefix` that name the object (any colour when it has none). */
export function actionsNaming(actions: readonly string[], prefix: string, o: GoalObject): string[] {
  return actions.filter((a) => a.startsWith(prefix) && new RegExp(`${o.color ?? '\\w+'} (?:\\w+ )?${o.type} \\d+$`).test(a));
}

/** The search of both heuristics: a door half the time one is in view, else a random turn or step. */
export function searchAction(actions: readonly string[], rand: () => number): string {
  const pick = (a: readonly string[]) => a[Math.floor(rand() * a.length)]!;
  const doors = actions.filter((a) => a.startsWith('toggle'));
  return pick(doors.length > 0 && rand() < 0.5 ? doors : actions.filter((a) => a === 'turn left' || a === 'turn right' || a === 'move forward'));
}
