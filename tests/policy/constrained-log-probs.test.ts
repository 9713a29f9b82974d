import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AllowedTokensBuilder } from '../../learner/allowed-tokens.ts';
import { padRows } from '../../learner/minibatch.ts';
import { FilteredPolicy, filterObservation, recordOf } from '../../policy/observation-filter.ts';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import { constrainedLogProbsOf } from '../../policy/transformer/constrained-log-probs.ts';

const ACTIONS = ['turn left', 'turn right', 'go to red ball 1', 'go to blue key 1', 'pickup red ball 1'];
const OBS = 'There is a red ball 1 2 steps in front of you.\nAvailable actions: ["turn left", "turn right"]';
const tokenizer = Tokenizer.fromCorpus([OBS, ...ACTIONS, 'Your goal: go to the red ball'], { maxVocab: 160, minCount: 1 });

describe('constrained scoring (policy/transformer/constrained-log-probs.ts)', () => {
  let model: Transformer;
  beforeAll(async () => {
    await selectBackend('cpu');
    model = new Transformer({ vocabSize: tokenizer.vocabSize, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 128 }, { seed: 3 });
  });

  it('is the log-softmax over the allowed tokens at each agent position of a real rollout', async () => {
    const policy = new FilteredPolicy(new TransformerPolicy(model, tokenizer, {}), 'no-action-list', { record: true });
    for (let turn = 0; turn < 3; turn++) {
      await policy.act([{ episodeId: 'e', turn, observation: turn === 0 ? `Your goal: go to the red ball\n${OBS}` : OBS, availableActions: ACTIONS, seed: 9 }]);
    }
    const record = recordOf(policy.release('e'))!;
    expect(record.availableActions).toEqual([ACTIONS, ACTIONS, ACTIONS]);
    const windows = record.trajectory.windows;
    const allowed = new AllowedTokensBuilder(new TransformerPolicy(model, tokenizer, {}).actionDecoding).forEpisode(windows, record.availableActions);
    for (const [i, w] of windows.entries()) {
      const padded = padRows([{ tokens: [...w.tokens], allowed: allowed[i]! }]);
      const { constrained, full, logits } = tf.tidy(() => {
        const tokens = padded.tokens();
        const s = constrainedLogProbsOf(model.params, model.config, tokens, padded.bias(model.config.vocabSize));
        return { constrained: s.logProbs.dataSync(), full: model.logProbsOf(tokens).logProbs.dataSync(), logits: model.forward(tokens).logits.arraySync()[0]! };
      });
      w.mask.forEach((m, t) => {
        if (m !== 1) return;
        // The sampler's recorded log-prob is the full-vocabulary one (sampling.ts).
        expect(full[t]).toBeCloseTo(w.logProbs[t]!, 4);
        const ids = allowed[i]![t]!;
        const row = logits[t - 1]!;
        const max = Math.max(...ids.map((id) => row[id]!));
        const logZ = max + Math.log(ids.reduce((a, id) => a + Math.exp(row[id]! - max), 0));
        expect(constrained[t]).toBeCloseTo(row[w.tokens[t]!]! - logZ, 4);
        if (ids.length === 1) expect(constrained[t]).toBeCloseTo(0, 6);
      });
    }
  });

  it('the no-action-list filter drops only the trailing list', () => {
    expect(filterObservation('no-action-list', OBS)).toBe('There is a red ball 1 2 steps in front of you.');
    expect(filterObservation('full', OBS)).toBe(OBS);
    expect(filterObservation('no-action-list', 'The task is completed.')).toBe('The task is completed.');
  });
});
