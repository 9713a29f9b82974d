import { describe, expect, it } from 'vitest';
import { AllowedTokensBuilder } from '../../learner/allowed-tokens.ts';
import type { CollectedEpisode } from '../../learner/collected-step.ts';
import { rowAdvantages, selectRows } from '../../learner/rows.ts';
import { tasksForStep, slotsFor } from '../../learner/task-sampler.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import type { TokenTrajectory } from '../../policy/policy.ts';
import type { EpisodeOutcome } from '../../streams/events.ts';

const noAllowed = new AllowedTokensBuilder({ constrained: true, encode: () => [], vocabSize: 32, maxActionTokens: 8 });

/** A window: `agent` marks which positions are agent tokens. */
function window(agent: readonly number[]): TokenTrajectory {
  return { tokens: agent.map((_, i) => 10 + i), mask: [...agent], logProbs: agent.map((m) => (m ? -1 : 0)) };
}

function episode(slot: number, group: number, reward: number, windows: TokenTrajectory[], outcome: EpisodeOutcome = reward > 0 ? 'success' : 'failure'): CollectedEpisode {
  const output = { episodeId: `e${slot}`, taskId: `t${group}`, slot, attempt: 0, outcome, reward, turns: 2, maxTurns: 3, policyVersion: 0, firstObservation: '', trajectory: [] } as EpisodeOutput;
  const last = windows[windows.length - 1]!;
  return { output, group, record: { trajectory: { ...last, windows }, availableActions: [] } };
}

describe('training rows (learner/rows.ts)', () => {
  it('never trains on aborted episodes, and drops GRPO groups left with one finished member', () => {
    const eps = [
      episode(0, 0, 1, [window([0, 1, 1])]),
      episode(1, 0, 0, [window([0, 1, 1])], 'aborted'),
      episode(2, 1, 1, [window([0, 1, 1])]),
      episode(3, 1, 0, [window([0, 1, 1])]),
    ];
    const grpo = selectRows(eps, 'grpo', false, noAllowed);
    expect(grpo.episodes.map((e) => e.output.slot)).toEqual([2, 3]);
    expect(grpo.groupsWithSignal).toBe(1);
    // PPO and REINFORCE++ baseline over the batch, not the group: the lone member stays.
    expect(selectRows(eps, 'ppo', false, noAllowed).episodes.map((e) => e.output.slot)).toEqual([0, 2, 3]);
  });

  it('dropUninformative skips GRPO/RLOO groups whose rewards are all equal', () => {
    const eps = [episode(0, 0, 1, [window([1])]), episode(1, 0, 1, [window([1])]), episode(2, 1, 1, [window([1])]), episode(3, 1, 0, [window([1])])];
    expect(selectRows(eps, 'rloo', true, noAllowed).episodes.map((e) => e.output.slot)).toEqual([2, 3]);
    expect(selectRows(eps, 'rloo', false, noAllowed).episodes).toHaveLength(4);
  });

  it('one row per window; GRPO gives every window of an episode its sequence advantage', () => {
    const eps = [
      episode(0, 0, 1, [window([0, 1, 1, 0]), window([0, 0, 1, 1])]),
      episode(1, 0, 0, [window([0, 1, 0])]),
    ];
    const set = selectRows(eps, 'grpo', false, noAllowed);
    expect(set.rows.map((r) => r.episode)).toEqual([0, 0, 1]);
    const { advantages } = rowAdvantages(set, 'grpo', {});
    // Rewards 1 and 0: mean 0.5, unbiased std √0.5 → ±0.7071 on agent tokens only.
    const a = 0.5 / Math.sqrt(0.5);
    expect([...advantages[0]!].map((x) => +x.toFixed(4))).toEqual([0, +a.toFixed(4), +a.toFixed(4), 0]);
    expect([...advantages[1]!].map((x) => +x.toFixed(4))).toEqual([0, 0, +a.toFixed(4), +a.toFixed(4)]);
    expect([...advantages[2]!].map((x) => +x.toFixed(4))).toEqual([0, -a.toFixed(4), 0]);
  });

  it('REINFORCE++/GAE see the outcome reward once, on the last agent token of the last window', () => {
    const eps = [episode(0, 0, 1, [window([0, 1, 1]), window([1, 0, 1])]), episode(1, 1, 0, [window([0, 1])])];
    const set = selectRows(eps, 'reinforce++', false, noAllowed);
    const { returns } = rowAdvantages(set, 'reinforce++', {});
    // γ = 1: every agent token of episode 0 returns 1 (the reward counted once), episode 1 returns 0.
    expect([...returns[0]!]).toEqual([0, 1, 1]);
    expect([...returns[1]!]).toEqual([1, 0, 1]);
    expect([...returns[2]!]).toEqual([0, 0]);
    // GAE with γ = λ = 1 and a critic: the value of the next agent token bootstraps across windows.
    const gae = rowAdvantages(set, 'ppo', { values: [new Float32Array([0, 0.5, 0.5]), new Float32Array([0.25, 0, 0.75]), new Float32Array([0, 0.1])] }, { normAdvantages: false });
    expect([...gae.returns[0]!]).toEqual([0, 1, 1]);
    expect([...gae.advantages[1]!]).toEqual([0.75, 0, 0.25]);
    expect(gae.advantages[2]![1]).toBeCloseTo(-0.1, 6);
  });
});

describe('task sampling (learner/task-sampler.ts)', () => {
  const tasks = Array.from({ length: 50 }, (_, i) => `task${i}`);
  it('draws n distinct tasks, the same for the same (seed, step), different across steps', () => {
    const a = tasksForStep(tasks, 8, 3, 5);
    expect(new Set(a).size).toBe(8);
    expect(tasksForStep(tasks, 8, 3, 5)).toEqual(a);
    expect(tasksForStep(tasks, 8, 3, 6)).not.toEqual(a);
    expect(tasksForStep(tasks, 8, 4, 5)).not.toEqual(a);
  });
  it('repeats each task G times in a row', () => {
    expect(slotsFor(['a', 'b'], 3)).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
  });
});
