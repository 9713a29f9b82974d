import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import { parseActionWords, reverseWords } from '../../policy/action-words.ts';
import type { ActRequest, TokenTrajectory } from '../../policy/policy.ts';
import type { WindowedTrajectory } from '../../policy/context-window.ts';
import { BOS_ID, END_ACT_ID } from '../../policy/special-tokens.ts';

const ACTIONS = ['go forward', 'turn left', 'turn right', 'pick up the red ball', 'pick up the blue key', 'open the door', 'toggle'];
const INSTRUCTION = 'Your mission: pick up the red ball. You see a wall 3 steps forward.';
const corpus = [INSTRUCTION, ...ACTIONS, 'You see a red ball 2 steps left and a blue key 1 step right.'];

const tokenizer = Tokenizer.fromCorpus(corpus, { maxVocab: 160, minCount: 1 });

function observation(turn: number): string {
  return turn === 0 ? INSTRUCTION : `You see a red ball ${turn % 5} steps left and a blue key ${turn % 3} step right.`;
}

/** Plays `turns` turns of `episodes` episodes in lockstep batches. */
async function play(policy: TransformerPolicy, episodes: string[], turns: number, available: (e: number, t: number) => string[] | undefined) {
  const actions: string[][] = episodes.map(() => []);
  for (let turn = 0; turn < turns; turn++) {
    const batch: ActRequest[] = episodes.map((episodeId, e) => {
      const acts = available(e, turn);
      return { episodeId, turn, observation: observation(turn), seed: 1000 + e, ...(acts ? { availableActions: acts } : {}) };
    });
    const decisions = await policy.act(batch);
    decisions.forEach((d, e) => actions[e]!.push(d.action));
  }
  return actions;
}

/** |recorded − recomputed| over the masked tokens of each window. */
function worstLogProbGap(model: Transformer, windows: readonly TokenTrajectory[]): number {
  let worst = 0;
  for (const w of windows) {
    const lp = tf.tidy(() => {
      const s = model.logProbsOf(tf.tensor2d([[...w.tokens]], [1, w.tokens.length], 'int32'));
      return s.logProbs.dataSync();
    });
    w.mask.forEach((m, t) => { if (m === 1) worst = Math.max(worst, Math.abs(lp[t]! - w.logProbs[t]!)); });
  }
  return worst;
}

describe('TransformerPolicy (cpu backend)', () => {
  let model: Transformer;
  beforeAll(async () => {
    await selectBackend('cpu');
    model = new Transformer({ vocabSize: tokenizer.vocabSize, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32, maxContext: 64 }, { seed: 1 });
  });

  it('constrained decoding only ever produces available actions', async () => {
    const policy = new TransformerPolicy(model, tokenizer, { constrained: true });
    const subsets = (e: number, t: number) => ACTIONS.filter((_, i) => (i + e + t) % 3 !== 0);
    const actions = await play(policy, ['a', 'b', 'c', 'd', 'e'], 6, subsets);
    actions.forEach((list, e) => list.forEach((a, t) => expect(subsets(e, t)).toContain(a)));
    ['a', 'b', 'c', 'd', 'e'].forEach((id) => policy.release(id));
  });

  it('with reversed action words, samples the words last to first and answers with the env\'s action', async () => {
    const policy = new TransformerPolicy(model, tokenizer, { constrained: true, actionWords: 'reversed' });
    const decisions = await policy.act(['a', 'b', 'c', 'd'].map((episodeId, e) => ({ episodeId, turn: 0, observation: INSTRUCTION, seed: 50 + e, availableActions: ACTIONS })));
    for (const d of decisions) {
      expect(ACTIONS).toContain(d.action);
      // The sampled ids are the reversed words, then </act>: "pick up the red ball" starts with "ball".
      expect(d.tokenIds).toEqual([...tokenizer.encode(reverseWords(d.action)), END_ACT_ID]);
    }
    // Multi-word actions really were reversed (the test would pass vacuously on one-word actions).
    expect(decisions.some((d) => d.action.includes(' ') && d.tokenIds![0] !== tokenizer.encode(d.action)[0])).toBe(true);
    ['a', 'b', 'c', 'd'].forEach((id) => policy.release(id));
  });

  it('records log-probs equal to logProbsOf at temperature 1 / top-p 1, across context windows', async () => {
    // Full history, a bounded history, and the actions-only memory: each re-windows differently.
    const contexts = [{}, { historyTurns: 1 }, { historyTurns: 2, historyActionsOnly: true }];
    for (const [constrained, context] of [true, false].flatMap((c) => contexts.map((x) => [c, x] as const))) {
      const policy = new TransformerPolicy(model, tokenizer, { constrained, maxActionTokens: 6, ...context });
      await play(policy, ['x', 'y', 'z'], 9, (e) => (e === 2 ? undefined : ACTIONS));
      for (const id of ['x', 'y', 'z']) {
        const traj = policy.release(id) as WindowedTrajectory;
        expect(traj.windows.length).toBeGreaterThan(1); // the 64-token context forced resets
        expect(worstLogProbGap(model, traj.windows)).toBeLessThan(1e-4);
        for (const w of traj.windows) {
          expect(w.tokens.length).toBeLessThanOrEqual(64);
          expect(w.tokens.length).toBe(w.mask.length);
          expect(w.tokens[w.tokens.length - 1]).toBe(END_ACT_ID);
        }
        expect(traj.tokens).toEqual(traj.windows[traj.windows.length - 1]!.tokens);
      }
    }
  });

  it('keeps the instruction at the head of every window and trains each sampled token once', async () => {
    const policy = new TransformerPolicy(model, tokenizer, { constrained: true });
    const decisions: number[][] = [];
    for (let turn = 0; turn < 12; turn++) {
      const [d] = await policy.act([{ episodeId: 'w', turn, observation: observation(turn), availableActions: ACTIONS, seed: 9 }]);
      decisions.push([...d!.tokenIds!]);
    }
    const traj = policy.release('w')!  as WindowedTrajectory;
    const head = [BOS_ID, ...tokenizer.encode(INSTRUCTION)];
    for (const w of traj.windows) expect(w.tokens.slice(0, head.length)).toEqual(head);
    const trained = traj.windows.flatMap((w) => w.tokens.filter((_, t) => w.mask[t] === 1));
    expect(trained).toEqual(decisions.flat());
  });

  it('a decision does not depend on the batch it lands in', async () => {
    const solo = new TransformerPolicy(model, tokenizer, { constrained: true });
    const alone = await play(solo, ['q'], 4, () => ACTIONS);
    const crowd = new TransformerPolicy(model, tokenizer, { constrained: true });
    // `play` seeds episode e with 1000 + e: 'p' here has the seed 'q' had alone.
    const together = await play(crowd, ['p', 'q', 'r'], 4, () => ACTIONS);
    expect(together[0]).toEqual(alone[0]);
    for (const p of [solo, crowd]) p.dispose();
  });

  it('leaks no tensors across act/release cycles and weight updates, with the instruction copy too', async () => {
    const copying = new Transformer({ ...model.config, instructionCopy: true }, { seed: 3 });
    for (const m of [model, copying]) await expectNoLeaks(m);
    copying.dispose();
  });

  async function expectNoLeaks(model: Transformer): Promise<void> {
    const policy = new TransformerPolicy(model, tokenizer, { constrained: false, maxActionTokens: 5 });
    await play(policy, ['warm'], 2, () => undefined);
    policy.release('warm');
    const before = tf.memory().numTensors;
    for (let cycle = 0; cycle < 3; cycle++) {
      await play(policy, ['l1', 'l2', 'l3'], 8, (e) => (e === 0 ? ACTIONS : undefined));
      if (cycle === 1) policy.setWeights(cycle + 1, model.getWeights());
      for (const id of ['l1', 'l2', 'l3']) policy.release(id);
      expect(tf.memory().numTensors).toBe(before);
    }
    expect(policy.version).toBe(2);
    expect(policy.liveEpisodes).toBe(0);
    policy.dispose();
  }

  it('after setWeights, new samples are scored under the new weights', async () => {
    const other = new Transformer(model.config, { seed: 77 });
    const policy = new TransformerPolicy(model, tokenizer, { constrained: true });
    await policy.act([{ episodeId: 'v', turn: 0, observation: observation(0), availableActions: ACTIONS, seed: 3 }]);
    const saved = Object.fromEntries(Object.entries(model.getWeights()).map(([k, t]) => [k, t.clone()]));
    policy.setWeights(5, other.getWeights());
    const [second] = await policy.act([{ episodeId: 'v', turn: 1, observation: observation(1), availableActions: ACTIONS, seed: 3 }]);
    const traj = policy.release('v')!;
    // Score only the turn-1 action (its last tokens), sampled under the new weights.
    const k = second!.tokenIds!.length;
    const window = { ...traj, mask: traj.mask.map((m, t) => (t >= traj.tokens.length - k ? m : 0)) };
    expect(policy.version).toBe(5);
    expect(worstLogProbGap(other, [window])).toBeLessThan(1e-4);
    model.setWeights(saved);
    tf.dispose(Object.values(saved));
    other.dispose();
  });
});

describe('action word order', () => {
  it('reversal is its own inverse and tolerates extra spaces', () => {
    expect(reverseWords('pickup yellow ball 1')).toBe('1 ball yellow pickup');
    expect(reverseWords(reverseWords('go to red ball 1'))).toBe('go to red ball 1');
    expect(reverseWords('  turn   left ')).toBe('left turn');
  });

  it('rejects an unknown order with the choices', () => {
    expect(parseActionWords('reversed')).toBe('reversed');
    expect(() => parseActionWords('backwards')).toThrow(/unknown action word order "backwards"; expected one of as-written, reversed/);
  });
});
