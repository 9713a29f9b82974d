/**
 * Issue 28, layout parity: with numpy's stream in minigridExact mode our generator builds the
 * grid AgentGym's BabyAI server builds (minigrid 2.4.0, gymnasium 0.29.1) for the same level and
 * seed. The fixture was written by minigrid itself:
 *   PYTHONPATH=... python3 experiments/babyai-layout-parity/minigrid_layouts.py LEVELS FIRST COUNT
 * (all 40 levels at seeds 0-2; GoToImpUnlock and Unlock at 3-19, where the key sometimes lands in
 * the locked room; PickupDistDebug 19, "a grey object"; SynthLoc 3 and SynthSeq 3, a stale locked
 * room). experiments/babyai-layout-parity/README.md has the setup and the 200-seed comparison.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ourLayout, stableStringify } from '../../../experiments/babyai-layout-parity/layout.ts';
import { AGENTGYM_LEVELS } from '../../../envs/babyai/agentgym-index.ts';

const lines = readFileSync(new URL('./fixtures/minigrid-layouts.jsonl', import.meta.url), 'utf8').trim().split('\n');
const layouts = lines.map((line) => JSON.parse(line) as { level: string; seed: number; objects: { type: string; color: string; x: number; y: number }[] });

describe('BabyAI grids equal to minigrid\'s for the same level and seed', () => {
  it('the fixture covers all 40 of AgentGym\'s levels', () => {
    expect(new Set(layouts.map((l) => l.level))).toEqual(new Set(AGENTGYM_LEVELS));
  });

  it.each(layouts.map((l, i) => [`${l.level} seed ${l.seed}`, i] as const))('%s', (_, i) => {
    const theirs = layouts[i]!;
    expect(stableStringify(ourLayout(theirs.level, theirs.seed))).toBe(stableStringify(theirs));
  });

  it('needs minigridExact for GoToImpUnlock and Unlock (minigrid compares numpy integers with `is`)', () => {
    // Without the accident the key stays out of the locked room and so does every distractor;
    // the fixture differs from that for some seeds, so parity depends on reproducing it.
    const differs = layouts.filter((l) => (l.level === 'GoToImpUnlock' || l.level === 'Unlock') &&
      stableStringify(ourLayout(l.level, l.seed, { minigridExact: false })) !== stableStringify(l));
    expect(differs.length).toBeGreaterThan(0);
  });
});
