/**
 * `TransformerPolicy.teacherForce`: an episode rebuilt from its past turns reads the same context
 * as one decoded live, so its next decision is the same (the policy server's rebuilt sessions).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { TransformerPolicy, type ForcedTurn, type TransformerPolicyOptions } from '../../policy/transformer-policy.ts';

const ACTIONS = ['go forward', 'turn left', 'turn right', 'pick up the red ball', 'pick up the blue key', 'open the door', 'toggle'];
const INSTRUCTION = 'Your mission: pick up the red ball. You see a wall 3 steps forward.';
const tokenizer = Tokenizer.fromCorpus([INSTRUCTION, ...ACTIONS, 'You see a red ball 2 steps left and a blue key 1 step right.'], { maxVocab: 160, minCount: 1 });

const observation = (turn: number) => (turn === 0 ? INSTRUCTION : `You see a red ball ${turn % 5} steps left and a blue key ${turn % 3} step right.`);
/** A different action list every turn, so each turn's action budget differs. */
const available = (turn: number) => ACTIONS.filter((_, i) => (i + turn) % 3 !== 0);

let model: Transformer;
beforeAll(async () => {
  await selectBackend('cpu');
  model = new Transformer({ vocabSize: tokenizer.vocabSize, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32, maxContext: 64 }, { seed: 4 });
});

const request = (episodeId: string, turn: number, seed: number) => ({
  episodeId, turn, seed, observation: observation(turn), availableActions: available(turn),
});

describe('TransformerPolicy.teacherForce', () => {
  // Full history, a bounded history, the actions-only memory: each re-windows on different turns.
  const contexts: Partial<TransformerPolicyOptions>[] = [{}, { historyTurns: 1 }, { historyTurns: 2, historyActionsOnly: true }, { actionWords: 'reversed' }];

  it.each(contexts)('a rebuilt episode reads the live context and decides the same next action (%o)', async (context) => {
    const live = new TransformerPolicy(model, tokenizer, { ...context });
    const rebuilt = new TransformerPolicy(model, tokenizer, { ...context });
    const past: ForcedTurn[] = [];
    for (let turn = 0; turn < 12; turn++) {
      rebuilt.teacherForce('r', past);
      expect(rebuilt.contextTokens('r')).toEqual(turn === 0 ? [] : live.contextTokens('e'));
      const [a] = await live.act([request('e', turn, 7)]);
      const [b] = await rebuilt.act([request('r', turn, 7)]);
      expect(b!.action).toBe(a!.action);
      expect(b!.tokenIds).toEqual(a!.tokenIds);
      // The same distribution: log-probs of the sampled tokens agree to float error.
      b!.logProbs!.forEach((lp, i) => expect(lp).toBeCloseTo(a!.logProbs![i]!, 4));
      past.push({ observation: observation(turn), availableActions: available(turn), action: a!.action });
    }
    // The 64-token context forced window resets, so the replay crossed them.
    expect(live.release('e')!.windows.length).toBeGreaterThan(1);
    rebuilt.dispose();
  });

  it('replayed actions are context, not samples: the rebuilt record trains only what it sampled', async () => {
    const policy = new TransformerPolicy(model, tokenizer);
    policy.teacherForce('t', [{ observation: observation(0), availableActions: available(0), action: 'turn left' }]);
    const [d] = await policy.act([request('t', 1, 3)]);
    const record = policy.release('t')!;
    expect(record.mask.reduce((a, b) => a + b, 0)).toBe(d!.tokenIds!.length);
  });

  it('a request may carry its own temperature (0 = greedy)', async () => {
    const policy = new TransformerPolicy(model, tokenizer, { temperature: 5 });
    const greedy = new TransformerPolicy(model, tokenizer, { temperature: 0 });
    for (let seed = 0; seed < 6; seed++) {
      const [a] = await policy.act([{ ...request(`s${seed}`, 0, seed), temperature: 0 }]);
      const [b] = await greedy.act([request(`g${seed}`, 0, seed + 100)]);
      expect(a!.action).toBe(b!.action);
    }
    policy.dispose();
    greedy.dispose();
  });
});
