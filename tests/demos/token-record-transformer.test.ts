/**
 * Issue 38: our own transformer's episodes make the same token records, windows included: each
 * turn's response ids are exactly the ids it sampled that turn, each sampled once across windows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRecordOf } from '../../demos/token-record-of.ts';
import { TokenRecordSchema } from '../../demos/token-record.ts';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';

const ACTIONS = ['go forward', 'turn left', 'turn right', 'pick up the red ball', 'open the door'];
const INSTRUCTION = 'Your mission: pick up the red ball. You see a wall 3 steps forward.';
const tokenizer = Tokenizer.fromCorpus([INSTRUCTION, ...ACTIONS, 'You see a red ball 2 steps left.'], { maxVocab: 160, minCount: 1 });
let model: Transformer;

beforeAll(async () => {
  await selectBackend('cpu');
  model = new Transformer({ vocabSize: tokenizer.vocabSize, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32, maxContext: 64 }, { seed: 1 });
});

describe('token records of the transformer policy (issue 38)', () => {
  for (const turnsPlayed of [2, 12]) {
    it(`${turnsPlayed} turns${turnsPlayed > 2 ? ' (past the 64-token context: several windows)' : ''}: one turn per decision, its ids and log-probs exact`, async () => {
      const policy = new TransformerPolicy(model, tokenizer, { constrained: true });
      const decisions = [];
      for (let turn = 0; turn < turnsPlayed; turn++) {
        const observation = turn === 0 ? INSTRUCTION : `You see a red ball ${turn % 5} steps left.`;
        const [d] = await policy.act([{ episodeId: 'w', turn, observation, availableActions: ACTIONS, seed: 9 }]);
        decisions.push(d!);
      }
      const trajectory = policy.release('w')!;
      const record = tokenRecordOf({
        env: 'babyai', split: 'train', taskId: 't', group: 0, sample: 0, episodeId: 'w', policy: { name: policy.name, version: policy.version },
        horizon: turnsPlayed, outcome: 'truncated', reward: 0, turns: decisions.map((d) => ({ action: d.action, reward: 0 })), trajectory,
      });
      expect(TokenRecordSchema.safeParse(record).success).toBe(true);
      expect(record.turns.map((t) => t.responseIds)).toEqual(decisions.map((d) => [...d.tokenIds!]));
      expect(record.turns.map((t) => t.logProbs)).toEqual(decisions.map((d) => [...d.logProbs!]));
      expect(record.drift).toBeNull();
      expect(record.windows === undefined).toBe(turnsPlayed === 2);
    });
  }
});
