import { describe, expect, it } from 'vitest';
import { EpisodeContext } from '../../policy/context-window.ts';
import { ACT_ID, BOS_ID, END_ACT_ID, OBS_ID } from '../../policy/special-tokens.ts';

const obs = (n: number, base: number): number[] => Array.from({ length: n }, (_, i) => base + i);

describe('EpisodeContext', () => {
  it('lays out turns as <bos> obs0 <act> a </act> <obs> obs1 <act> …', () => {
    const c = new EpisodeContext({ maxContext: 100 });
    c.beginTurn([10, 11], 4);
    c.appendAction([20, END_ACT_ID], [-1, -2]);
    c.beginTurn([12], 4);
    c.appendAction([21, END_ACT_ID], [-3, -4]);
    const t = c.trajectory()!;
    expect(t.tokens).toEqual([BOS_ID, 10, 11, ACT_ID, 20, END_ACT_ID, OBS_ID, 12, ACT_ID, 21, END_ACT_ID]);
    expect(t.mask).toEqual([0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]);
    expect(t.logProbs).toEqual([0, 0, 0, 0, -1, -2, 0, 0, 0, -3, -4]);
    expect(t.windows).toHaveLength(1);
  });

  it('drops the oldest turns, keeps the instruction, and masks carried-over actions', () => {
    const c = new EpisodeContext({ maxContext: 40, refillFraction: 0.75 });
    const instruction = obs(6, 100);
    let resets = 0;
    for (let turn = 0; turn < 10; turn++) {
      const { windowReset } = c.beginTurn(turn === 0 ? instruction : obs(5, 200 + 10 * turn), 3);
      if (windowReset) resets++;
      expect(c.tokens.length + 3).toBeLessThanOrEqual(40);
      c.appendAction([300 + turn, END_ACT_ID], [-turn, -0.5]);
    }
    expect(resets).toBeGreaterThan(1);
    const t = c.trajectory()!;
    expect(t.windows).toHaveLength(resets + 1);
    for (const w of t.windows) {
      expect(w.tokens.slice(0, 7)).toEqual([BOS_ID, ...instruction]);
      expect(w.tokens.length).toBeLessThanOrEqual(40);
    }
    // Every action token is trained in exactly one window, in order.
    const trained = t.windows.flatMap((w) => w.tokens.filter((_, i) => w.mask[i] === 1));
    expect(trained).toEqual(Array.from({ length: 10 }, (_, turn) => [300 + turn, END_ACT_ID]).flat());
    // After a reset the window starts from the head plus whole recent turns.
    const second = t.windows[1]!;
    expect(second.tokens[7]).toBe(OBS_ID);
  });

  it('clips an overlong instruction and an overlong observation from their ends', () => {
    const c = new EpisodeContext({ maxContext: 32, maxInstructionTokens: 10 });
    c.beginTurn(obs(50, 100), 4);
    expect(c.tokens).toEqual([BOS_ID, ...obs(10, 100), ACT_ID]);
    c.appendAction([END_ACT_ID], [0]);
    const { windowReset } = c.beginTurn(obs(60, 500), 4);
    expect(windowReset).toBe(true);
    expect(c.tokens.length + 4).toBeLessThanOrEqual(32);
    expect(c.tokens.slice(0, 11)).toEqual([BOS_ID, ...obs(10, 100)]);
    expect(c.tokens.slice(11, 13)).toEqual([OBS_ID, 500]);
  });

  it('returns no trajectory when the agent never acted', () => {
    const c = new EpisodeContext({ maxContext: 32 });
    expect(c.trajectory()).toBeUndefined();
    c.beginTurn([7], 2);
    expect(c.trajectory()).toBeUndefined();
  });

  it('with historyTurns 0, reads the instruction and the current observation only, at the same positions every turn', () => {
    const c = new EpisodeContext({ maxContext: 100, historyTurns: 0, maxInstructionTokens: 2 });
    expect(c.beginTurn([10, 11, 12], 4).windowReset).toBe(false);
    c.appendAction([20, END_ACT_ID], [-1, -2]);
    expect(c.beginTurn([13, 14, 15], 4).windowReset).toBe(true);
    c.appendAction([21, END_ACT_ID], [-3, -4]);
    const t = c.trajectory()!;
    expect(t.windows.map((w) => w.tokens)).toEqual([
      [BOS_ID, 10, 11, OBS_ID, 10, 11, 12, ACT_ID, 20, END_ACT_ID],
      [BOS_ID, 10, 11, OBS_ID, 13, 14, 15, ACT_ID, 21, END_ACT_ID],
    ]);
    expect(t.windows.map((w) => w.mask)).toEqual([
      [0, 0, 0, 0, 0, 0, 0, 0, 1, 1],
      [0, 0, 0, 0, 0, 0, 0, 0, 1, 1],
    ]);
  });

  it('with historyTurns 1, keeps exactly the previous turn block', () => {
    const c = new EpisodeContext({ maxContext: 100, historyTurns: 1, maxInstructionTokens: 1 });
    c.beginTurn([10], 4);
    c.appendAction([20, END_ACT_ID], [-1, -1]);
    expect(c.beginTurn([11], 4).windowReset).toBe(false);
    c.appendAction([21, END_ACT_ID], [-1, -1]);
    expect(c.beginTurn([12], 4).windowReset).toBe(true);
    c.appendAction([22, END_ACT_ID], [-1, -1]);
    expect(c.tokens).toEqual([BOS_ID, 10, OBS_ID, 11, ACT_ID, 21, END_ACT_ID, OBS_ID, 12, ACT_ID, 22, END_ACT_ID]);
    // Every sampled token is trained once: the carried-over action is context in the new window.
    expect(c.trajectory()!.windows.map((w) => w.mask.reduce((a, b) => a + b, 0))).toEqual([4, 2]);
  });

  it('rejects a negative or fractional historyTurns', () => {
    expect(() => new EpisodeContext({ maxContext: 100, historyTurns: -1 })).toThrow(/historyTurns/);
    expect(() => new EpisodeContext({ maxContext: 100, historyTurns: 0.5 })).toThrow(/historyTurns/);
  });

  it('with historyActionsOnly, keeps the last historyTurns actions without their observations', () => {
    const c = new EpisodeContext({ maxContext: 100, historyTurns: 2, historyActionsOnly: true, maxInstructionTokens: 1 });
    expect(c.beginTurn([10, 11], 4).windowReset).toBe(false);
    c.appendAction([20, END_ACT_ID], [-1, -1]);
    // Every later turn starts a window: the previous observation leaves it.
    expect(c.beginTurn([12, 13], 4).windowReset).toBe(true);
    c.appendAction([21, END_ACT_ID], [-1, -1]);
    expect(c.tokens).toEqual([BOS_ID, 10, ACT_ID, 20, END_ACT_ID, OBS_ID, 12, 13, ACT_ID, 21, END_ACT_ID]);
    expect(c.beginTurn([14], 4).windowReset).toBe(true);
    c.appendAction([22, END_ACT_ID], [-1, -1]);
    expect(c.beginTurn([15], 4).windowReset).toBe(true);
    c.appendAction([23, END_ACT_ID], [-1, -1]);
    // Two past actions, oldest dropped; then the current view.
    expect(c.tokens).toEqual([BOS_ID, 10, ACT_ID, 21, END_ACT_ID, ACT_ID, 22, END_ACT_ID, OBS_ID, 15, ACT_ID, 23, END_ACT_ID]);
    const t = c.trajectory()!;
    // One window per turn, each training only the action sampled in it.
    expect(t.windows).toHaveLength(4);
    expect(t.windows.map((w) => w.mask.reduce((a, b) => a + b, 0))).toEqual([2, 2, 2, 2]);
    expect(t.windows[3]!.mask).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]);
  });

  it('with historyActionsOnly and historyTurns 0, is the Markov layout', () => {
    const markov = new EpisodeContext({ maxContext: 100, historyTurns: 0, maxInstructionTokens: 2 });
    const actionsOnly = new EpisodeContext({ maxContext: 100, historyTurns: 0, historyActionsOnly: true, maxInstructionTokens: 2 });
    for (const c of [markov, actionsOnly]) {
      c.beginTurn([10, 11, 12], 4);
      c.appendAction([20, END_ACT_ID], [-1, -2]);
      c.beginTurn([13], 4);
      c.appendAction([21, END_ACT_ID], [-3, -4]);
    }
    expect(actionsOnly.trajectory()).toEqual(markov.trajectory());
  });

  it('rejects historyActionsOnly without historyTurns', () => {
    expect(() => new EpisodeContext({ maxContext: 100, historyActionsOnly: true })).toThrow(/historyActionsOnly needs historyTurns/);
  });
});
