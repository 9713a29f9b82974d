/**
 * Shared checks for the BabyAI level tests (issue 28): missions generate and match the level's
 * grammar, and the oracle solves the level through AgentGym's macro actions.
 */
import { expect } from 'vitest';
import { generateLevel } from '../../../envs/babyai/level.ts';
import { LEVEL_BY_NAME } from '../../../envs/babyai/tasks.ts';
import type { LevelSpec } from '../../../envs/babyai/level.ts';

export function level(name: string): LevelSpec {
  const spec = LEVEL_BY_NAME.get(name);
  if (!spec) throw new Error(`no level ${name}`);
  return spec;
}

/** Generates `count` seeds, checks each mission against `pattern` and returns the levels. */
export function expectMissions(name: string, pattern: RegExp, count = 50) {
  const spec = level(name);
  const out = [];
  for (let seed = 0; seed < count; seed++) {
    const g = generateLevel(spec, seed);
    expect(g.mission, `${name}/${seed}`).toMatch(pattern);
    const w = g.world;
    expect(w.get(w.agentX, w.agentY), `${name}/${seed}: agent on an empty cell`).toBe(-1);
    expect(g.world.width).toBe((spec.roomSize - 1) * spec.numCols + 1);
    out.push(g);
  }
  return out;
}

/** Episodes the oracle wins within `maxTurns` agent turns, over seeds 0..count-1. */
export { oracleWins } from '../../../experiments/babyai-levels/oracle-wins.ts';
