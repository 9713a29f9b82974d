import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CollectedEpisode } from '../../actors/learner/collect.ts';
import { trainStep } from '../../actors/learner/train-step.ts';
import { resolveConfig } from '../../actors/training/config.ts';
import { freshModels, toCheckpoint } from '../../actors/training/models.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { selectBackend } from '../../policy/backend.ts';
import { ACT_ID, BOS_ID, END_ACT_ID, OBS_ID } from '../../policy/special-tokens.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import type { Algorithm } from '../../algorithms/index.ts';

const ACTIONS = ['turn left', 'go to the red ball', 'go to the blue key'];
const tokenizer = Tokenizer.fromCorpus(['You see a red ball and a blue key.', ...ACTIONS], { maxVocab: 128, minCount: 1 });
const enc = (s: string) => tokenizer.encode(s);

/** A two-window episode whose turns pick actions by index. */
function episode(slot: number, group: number, reward: number, picks: number[]): CollectedEpisode {
  const act = (i: number) => [...enc(ACTIONS[i]!), END_ACT_ID];
  const obs = enc('You see a red ball and a blue key.');
  const head = [BOS_ID, ...obs, ACT_ID];
  const w1 = [...head, ...act(picks[0]!), OBS_ID, ...obs, ACT_ID, ...act(picks[1]!)];
  const w2 = [...head, OBS_ID, ...obs, ACT_ID, ...act(picks[2]!)];
  const mask = (tokens: number[], agent: number[][]) => {
    const m = tokens.map(() => 0);
    let at = 0;
    for (const a of agent) {
      at = tokens.indexOf(ACT_ID, at) + 1;
      a.forEach((_, k) => (m[at + k] = 1));
    }
    return m;
  };
  const win = (tokens: number[], agent: number[][]) => ({ tokens, mask: mask(tokens, agent), logProbs: tokens.map(() => -1) });
  // w2's first <act> closes the head (no action sampled there); its action follows the second one.
  const windows = [win(w1, [act(picks[0]!), act(picks[1]!)]), win(w2, [[], act(picks[2]!)])];
  const output = { episodeId: `e${slot}`, taskId: `t${group}`, slot, attempt: 0, outcome: reward > 0 ? 'success' : 'failure', reward, turns: 3, maxTurns: 3, policyVersion: 0, firstObservation: '', trajectory: [] } as unknown as EpisodeOutput;
  return { output, group, record: { trajectory: { ...windows[1]!, windows }, availableActions: [ACTIONS, ACTIONS, ACTIONS] } };
}

const episodes = [
  episode(0, 0, 1, [1, 0, 1]), episode(1, 0, 0, [0, 2, 0]),
  episode(2, 1, 0.5, [2, 1, 1]), episode(3, 1, 0, [0, 0, 2]),
];

describe('learner memory (tf.memory().numTensors across learner steps)', () => {
  beforeAll(async () => {
    await selectBackend('cpu');
  });

  const cases: [Algorithm, boolean][] = [['grpo', false], ['ppo', false], ['grpo', true]];
  for (const [algo, instructionCopy] of cases) {
    it(`${algo}${instructionCopy ? ' with the instruction copy' : ''}: live tensors stay flat after the first step (Adam's moments) — training and checkpointing`, async () => {
      const model = { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64, instructionCopy };
      const config = resolveConfig('babyai', { steps: 4, algo, epochs: 2, minibatch: 3, model });
      const models = freshModels(tokenizer, config);
      const counts: number[] = [];
      for (let step = 1; step <= 4; step++) {
        const m = await trainStep({
          model: models.model, reference: models.reference, optimizer: models.optimizer, args: config,
          episodes, seed: 0, step, dropUninformative: true, encode: enc,
        });
        expect(m.updates).toBeGreaterThan(0);
        expect(Number.isFinite(m.loss)).toBe(true);
        await toCheckpoint(models, { step, policyVersion: step, curriculum: { completedSteps: step, horizon: 3 }, rng: { seed: 0, derivedFrom: 'seed and step' }, config: {} });
        counts.push(tf.memory().numTensors);
      }
      expect(counts[1]).toBe(counts[0]);
      expect(counts[2]).toBe(counts[0]);
      expect(counts[3]).toBe(counts[0]);
      models.dispose();
    });
  }
});
