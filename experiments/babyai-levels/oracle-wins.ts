/**
 * How many seeds of one BabyAI level the oracle wins within `maxTurns` agent turns. Shared by
 * oracle-levels.ts (the docs' table) and the level tests (tests/envs/babyai/level-harness.ts).
 */
import { babyaiDefinition } from '../../envs/babyai/index.ts';

export interface OracleWinsOptions {
  /** First seed (default 0). */
  readonly first?: number;
  /** `/minigrid` plays the grids AgentGym's server builds; default: our own. */
  readonly suffix?: '' | '/minigrid';
}

/** Seeds first … first+count-1 of level `name`: wins, and the task ids lost. */
export async function oracleWins(name: string, maxTurns: number, count = 50, options: OracleWinsOptions = {}): Promise<{ wins: number; lost: string[] }> {
  const env = babyaiDefinition.make();
  const oracle = babyaiDefinition.oracle?.(env) as { next(): Promise<string> };
  const first = options.first ?? 0;
  let wins = 0;
  const lost: string[] = [];
  try {
    for (let seed = first; seed < first + count; seed++) {
      const taskId = `${name}/${seed}${options.suffix ?? ''}`;
      await env.reset({ taskId });
      let won = false;
      for (let t = 0; t < maxTurns; t++) {
        const r = await env.step(await oracle.next());
        if (r.terminated || r.truncated) {
          won = r.info.success === true;
          break;
        }
      }
      if (won) wins++;
      else lost.push(taskId);
    }
  } finally {
    await env.close();
  }
  return { wins, lost };
}
