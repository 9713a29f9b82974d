/**
 * Issue 38: the token record's schema and how a trajectory is cut into turns (by runs of mask 1),
 * windows included, and a mismatch between replies and turns named.
 */
import { describe, expect, it } from 'vitest';
import { cutTurns, tokenRecordOf, type TokenRecordInput } from '../../demos/token-record-of.ts';
import { parseTokenRecords, TokenRecordSchema } from '../../demos/token-record.ts';

const base: Omit<TokenRecordInput, 'trajectory' | 'turns'> = {
  env: 'babyai', split: 'train', taskId: 't3', group: 3, sample: 1, episodeId: 'e', policy: { name: 'p', version: 2 }, horizon: 4, outcome: 'success', reward: 1,
};
const turns = [{ action: 'a', reward: 0 }, { action: 'b', reward: 1 }];

describe('token records (issue 38)', () => {
  it('cuts prompts and replies at the mask, with the log-probs of the replies', () => {
    expect(cutTurns({ tokens: [1, 2, 3, 4, 5, 6, 7], mask: [0, 0, 1, 1, 0, 1, 0], logProbs: [0, 0, -1, -2, 0, -3, 0] })).toEqual([
      { promptIds: [1, 2], responseIds: [3, 4], logProbs: [-1, -2] },
      { promptIds: [5], responseIds: [6], logProbs: [-3] },
    ]);
  });

  it('a record validates, carries per-turn rewards and drift, and round-trips through JSON lines', () => {
    const record = tokenRecordOf({ ...base, turns, trajectory: { tokens: [1, 2, 3, 4, 5], mask: [0, 1, 0, 1, 1], logProbs: [0, -1, 0, -2, -3], driftTurns: [1] } });
    expect(record.turns.map((t) => [t.reward, t.action, t.drift])).toEqual([[0, 'a', false], [1, 'b', true]]);
    expect(record.drift).toBe(1);
    expect(parseTokenRecords(`${JSON.stringify(record)}\n`)).toEqual([record]);
  });

  it('an episode that outgrew its context: turns from every window, the windows kept', () => {
    const windows = [{ tokens: [1, 2, 3], mask: [0, 1, 0], logProbs: [0, -1, 0] }, { tokens: [1, 3, 4], mask: [0, 0, 1], logProbs: [0, 0, -2] }];
    const record = tokenRecordOf({ ...base, turns, trajectory: { ...windows[1]!, windows } });
    expect(record.turns.map((t) => t.responseIds)).toEqual([[2], [4]]);
    expect(record.windows).toHaveLength(2);
    expect(record.drift).toBeNull();
  });

  it('names the episode when its replies and its turns disagree, and the field when a record is malformed', () => {
    expect(() => tokenRecordOf({ ...base, turns, trajectory: { tokens: [1, 2], mask: [0, 1], logProbs: [0, -1] } })).toThrow(/episode e: its token record holds 1 replies .* 2 turns/);
    const good = tokenRecordOf({ ...base, turns: turns.slice(0, 1), trajectory: { tokens: [1, 2], mask: [0, 1], logProbs: [0, -1] } });
    expect(TokenRecordSchema.safeParse({ ...good, logProbs: [0] }).success).toBe(false);
    expect(TokenRecordSchema.safeParse({ ...good, outcome: 'aborted' }).success).toBe(false);
    expect(() => parseTokenRecords(`${JSON.stringify(good)}\n${JSON.stringify({ ...good, mask: [0, 2] })}\n`)).toThrow(/line 2: mask/);
  });
});
