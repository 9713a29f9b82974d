/** A small tokenizer and four two-window episodes for learner tests (two groups of two). */
import type { CollectedEpisode } from '../../learner/collected-step.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { ACT_ID, BOS_ID, END_ACT_ID, OBS_ID } from '../../policy/special-tokens.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';

const ACTIONS = ['turn left', 'go to the red ball', 'go to the blue key'];
export const tokenizer = Tokenizer.fromCorpus(['You see a red ball and a blue key.', ...ACTIONS], { maxVocab: 128, minCount: 1 });
export const enc = (s: string) => tokenizer.encode(s);

/** A two-window episode whose turns pick actions by index. */
export function episode(slot: number, group: number, reward: number, picks: number[]): CollectedEpisode {
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
  const output: EpisodeOutput = { episodeId: `e${slot}`, taskId: `t${group}`, slot, attempt: 0, outcome: reward > 0 ? 'success' : 'failure', reward, turns: 3, maxTurns: 3, policyVersion: 0, firstObservation: '', trajectory: [] };
  return { output, group, record: { trajectory: { ...windows[1]!, windows }, availableActions: [ACTIONS, ACTIONS, ACTIONS] } };
}

export const episodes = [
  episode(0, 0, 1, [1, 0, 1]), episode(1, 0, 0, [0, 2, 0]),
  episode(2, 1, 0.5, [2, 1, 1]), episode(3, 1, 0, [0, 0, 2]),
];
