/**
 * Pieces shared by the hand-written BabyAI policies (experiments/babyai-policies/reactive-policy.ts and
 * experiments/babyai-policies/memory-policy.ts), so that the two differ only in what they remember.
 */

/** A seeded LCG in [0, 1): the heuristics' draws, reproducible run to run. */
export function lcg(seed = 12345): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

export interface GoalObject {
  readonly color: string | undefined;
  readonly type: string;
  /** Where it is relative to the agent's starting pose, for the goals that say so. */
  readonly loc?: 'front' | 'behind' | 'left' | 'right' | undefined;
}

/** Whether `thing` fits the description's type and colour (any colour when it names none). */
export function describes(o: GoalObject, thing: { readonly type: string; readonly color: string }): boolean {
  return thing.type === o.type && (o.color === undefined || thing.color === o.color);
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

/** One part of a goal: `go to`, `pick up`, `open` or `put` an object (next to another). */
export interface SubGoal { readonly verb: string; readonly obj: GoalObject; readonly next: GoalObject | undefined }

const OBJ = /(?:the|a) ?(red|green|blue|purple|yellow|grey)? ?(ball|box|key|door)(?: (in front of you|behind you|on your left|on your right))?/;
const LOC = { 'in front of you': 'front', 'behind you': 'behind', 'on your left': 'left', 'on your right': 'right' } as const;

function goalObject(m: RegExpExecArray): GoalObject {
  return { color: m[1], type: m[2]!, loc: m[3] ? LOC[m[3] as keyof typeof LOC] : undefined };
}

/** The goal's parts in the order they are to be done. */
export function subGoals(goal: string): SubGoal[] {
  // "A after you B" is done as B, then A.
  const after = goal.split(' after you ');
  const parts = (after.length === 2 ? [after[1]!, after[0]!] : [goal]).flatMap((g) => g.split(/,? and |, then /));
  return parts.flatMap((part) => {
    const verb = /^(?:go to|pick up|open|put)/.exec(part.trim())?.[0];
    const obj = OBJ.exec(part);
    if (!verb || !obj) return [];
    const next = / next to (.*)$/.exec(part);
    const nextObj = next ? OBJ.exec(next[1]!) : null;
    return [{ verb, obj: goalObject(obj), next: nextObj ? goalObject(nextObj) : undefined }];
  });
}

/** Prints `Level solved/tasks` for each level and returns the totals. */
export function printByLevel(byLevel: ReadonlyMap<string, readonly number[]>): { solved: number; total: number } {
  let solved = 0;
  let total = 0;
  for (const [level, outcomes] of byLevel) {
    const s = outcomes.reduce((a, b) => a + b, 0);
    solved += s;
    total += outcomes.length;
    console.log(`${level} ${s}/${outcomes.length}`);
  }
  return { solved, total };
}
