// Issue 5: the adaptive (closed-loop) curriculum, on scripted metric streams — raises on
// truncation, holds on progress, steps back on collapse, and a resume gives identical decisions.
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { stepSignals, trend } from '../../machines/adaptive-horizon.ts';
import { curriculumMachine, curriculumState, type CurriculumDecision, type CurriculumInput } from '../../machines/curriculum.machine.ts';
import { formatSchedule, horizonAt, parseSchedule, type Schedule } from '../../machines/schedule.ts';
import { emitted } from './emitted.ts';

type Metrics = Record<string, number>;
type Snapshot = SnapshotFrom<typeof curriculumMachine>;

function adaptive(text: string): Schedule {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

// Scripted lines without episode counts or turns on successes: the rule's fixed bar and
// all-episode turns apply (the noise-aware test is in adaptive-noise.test.ts).
const m = (successRate: number, truncationRate: number, meanTurns = 5, entropy = 1): Metrics => ({ successRate, truncationRate, meanTurns, entropy });

/** Feeds a scripted stream; returns every decision and the emitted horizon changes. */
function drive(input: CurriculumInput, stream: readonly Metrics[], from = 0, start?: Snapshot) {
  let snapshot = start ?? initialTransition(curriculumMachine, input)[0];
  const decisions: CurriculumDecision[] = [];
  const changes: Record<string, unknown>[] = [];
  stream.forEach((metrics, i) => {
    const [next, actions] = transition(curriculumMachine, snapshot, { type: 'LEARNER.STEPPED', step: from + i + 1, metrics });
    snapshot = next;
    for (const e of emitted(actions)) {
      if (e.type === 'curriculum.decided') decisions.push(e as unknown as CurriculumDecision);
      else changes.push(e);
    }
  });
  return { snapshot, decisions, changes, horizons: decisions.map((d) => d.to) };
}

describe('adaptive schedule syntax', () => {
  it('parses with defaults and round-trips through formatSchedule', () => {
    expect(parseSchedule('adaptive:min=6,max=20')).toEqual({ ok: true, value: { kind: 'adaptive', min: 6, max: 20, step: 7, window: 5, trunc: 0.2 } });
    expect(parseSchedule(' adaptive: max=9 , min=3, window=4, step=2, trunc=0.5 ')).toEqual({ ok: true, value: { kind: 'adaptive', min: 3, max: 9, step: 2, window: 4, trunc: 0.5 } });
    for (const text of ['fixed:7', 'scaling:[6,13,20]@100', 'adaptive:min=6,max=20', 'adaptive:min=2,max=2,step=1,window=2,trunc=0']) {
      const schedule = adaptive(text);
      expect(adaptive(formatSchedule(schedule))).toEqual(schedule);
      expect(formatSchedule(adaptive(formatSchedule(schedule)))).toBe(formatSchedule(schedule));
    }
    expect(horizonAt(adaptive('adaptive:min=6,max=20'), 50)).toBe(6);
  });

  it('measures a trend as the fitted change across the window', () => {
    expect(trend([0.1, 0.2, 0.3, 0.4])).toBeCloseTo(0.3);
    expect(trend([0.5, 0.5, 0.5])).toBe(0);
    expect(trend([1])).toBe(0);
  });
});

describe('adaptive curriculum machine', () => {
  const schedule = adaptive('adaptive:min=6,max=20,step=7,window=3');

  it('starts at min and gathers a window before deciding', () => {
    const { decisions, changes } = drive({ schedule }, [m(0.3, 0.7), m(0.3, 0.7)]);
    expect(decisions.map((d) => [d.decision, d.to])).toEqual([['hold', 6], ['hold', 6]]);
    expect(decisions[1]?.reason).toMatch(/gathering signals: 2\/3 steps at horizon 6/);
    expect(changes).toEqual([]);
  });

  it('raises on truncation when success is flat, in steps, up to max', () => {
    const flat = Array.from({ length: 9 }, () => m(0.3, 0.7));
    const { horizons, decisions, changes } = drive({ schedule }, flat);
    expect(horizons).toEqual([6, 6, 13, 13, 13, 20, 20, 20, 20]);
    expect(decisions[2]).toMatchObject({ step: 3, from: 6, to: 13, decision: 'raise', signals: { windowSteps: 3, truncationMean: expect.closeTo(0.7), successTrend: 0 } });
    expect(decisions[2]?.reason).toMatch(/truncation 0\.70 ≥ 0\.2 and success flat .*raise to 13/);
    expect(decisions[8]?.reason).toMatch(/already at the maximum horizon 20/);
    expect(changes).toEqual([
      { type: 'horizon.changed', from: 6, to: 13, step: 4, reason: expect.stringContaining('raise to 13') },
      { type: 'horizon.changed', from: 13, to: 20, step: 7, reason: expect.stringContaining('raise to 20') },
    ]);
  });

  it('holds on progress even with high truncation', () => {
    const rising = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6].map((s) => m(s, 0.8));
    const { horizons, decisions } = drive({ schedule }, rising);
    expect(horizons).toEqual([6, 6, 6, 6, 6, 6]);
    expect(decisions.slice(2).every((d) => d.decision === 'hold' && /^progress: success \+0\.20 over 3 steps/.test(d.reason))).toBe(true);
  });

  it('holds when the horizon does not bind (few truncations)', () => {
    const { horizons, decisions } = drive({ schedule }, [m(0.9, 0.05), m(0.9, 0.05), m(0.9, 0.05)]);
    expect(horizons).toEqual([6, 6, 6]);
    expect(decisions[2]?.reason).toMatch(/horizon not binding: truncation 0\.05 < 0\.2/);
  });

  it('steps back on collapse (falling success with rising turns), then waits before raising again', () => {
    // Raise to 13 on a plateau, then collapse there: success falls while turns rise.
    const plateau = [m(0.4, 0.6), m(0.4, 0.6), m(0.4, 0.6)];
    const collapse = [m(0.5, 0.5, 8), m(0.35, 0.6, 10), m(0.2, 0.7, 12)];
    const after = Array.from({ length: 9 }, () => m(0.3, 0.7));
    const { horizons, decisions } = drive({ schedule }, [...plateau, ...collapse, ...after]);
    expect(horizons.slice(0, 6)).toEqual([6, 6, 13, 13, 13, 6]);
    expect(decisions[5]).toMatchObject({ step: 6, from: 13, to: 6, decision: 'back' });
    expect(decisions[5]?.reason).toMatch(/^collapse: success -0\.30 over 3 steps \(no episode counts, fixed bar -0\.10\) with turns \+4\.00: step back to 6, no raise before step 13/);
    // Steps 7..12: a full window at 6 shows truncation and a flat success, but raising is blocked until step 12.
    expect(decisions[8]?.reason).toMatch(/raising is blocked until step 13/);
    expect(horizons.slice(6)).toEqual([6, 6, 6, 6, 6, 13, 13, 13, 20]);
  });

  it('steps back on falling success with rising entropy, but not on a fall alone', () => {
    const start: CurriculumInput = { schedule, state: { completedSteps: 10, horizon: 20, adaptive: { history: [], raiseBlockedUntil: 0 } } };
    const entropyUp = drive(start, [m(0.6, 0.3, 10, 1.0), m(0.45, 0.3, 10, 1.3), m(0.3, 0.3, 10, 1.6)], 10);
    expect(entropyUp.decisions[2]).toMatchObject({ step: 13, from: 20, to: 13, decision: 'back' });
    expect(entropyUp.decisions[2]?.reason).toMatch(/collapse: success -0\.30 over 3 steps \(no episode counts, fixed bar -0\.10\) with entropy \+0\.60/);
    const fallOnly = drive(start, [m(0.6, 0.3, 10, 1.0), m(0.45, 0.3, 10, 1.0), m(0.3, 0.3, 10, 1.0)], 10);
    expect(fallOnly.decisions[2]).toMatchObject({ decision: 'hold', to: 20 });
    expect(fallOnly.decisions[2]?.reason).toMatch(/success falling \(-0\.30 over 3 steps\), not a collapse/);
  });

  it('reads no entropy from a step without a gradient update (its entropy 0 measures nothing)', () => {
    expect(stepSignals(4, { successRate: 0.5, meanTurns: 3, truncationRate: 0.5, entropy: 0, updates: 0 })).toMatchObject({ entropy: null });
    expect(stepSignals(4, { successRate: 0.5, meanTurns: 3, truncationRate: 0.5, entropy: 0.7, updates: 2 })).toMatchObject({ entropy: 0.7 });
    expect(stepSignals(4, { successRate: 0.5, meanTurns: 3 })).toBeNull();
  });

  it('holds without metrics (e.g. a rollout system that has no learner)', () => {
    let [snapshot] = initialTransition(curriculumMachine, { schedule });
    for (let step = 1; step <= 4; step++) [snapshot] = transition(curriculumMachine, snapshot, { type: 'LEARNER.STEPPED', step });
    expect(snapshot.context).toMatchObject({ horizon: 6, completedSteps: 4, lastDecision: { decision: 'hold', reason: 'no rollout metrics for this step' } });
  });

  it('resumes from a checkpointed state with identical decisions, at every step', () => {
    const stream = [
      ...Array.from({ length: 3 }, () => m(0.3, 0.7)),
      m(0.5, 0.5, 8), m(0.35, 0.6, 10), m(0.2, 0.7, 12),
      ...[0.2, 0.25, 0.3, 0.35, 0.35, 0.35, 0.35, 0.35, 0.35, 0.35].map((s) => m(s, 0.6)),
    ];
    const whole = drive({ schedule }, stream);
    expect(new Set(whole.decisions.map((d) => d.decision))).toEqual(new Set(['hold', 'raise', 'back']));
    for (let cut = 1; cut < stream.length; cut++) {
      const first = drive({ schedule }, stream.slice(0, cut));
      // What a checkpoint holds goes through JSON (state.json).
      const state = JSON.parse(JSON.stringify(curriculumState(first.snapshot.context)));
      const rest = drive({ schedule, state }, stream.slice(cut), cut);
      expect([...first.decisions, ...rest.decisions]).toEqual(whole.decisions);
      expect([...first.changes, ...rest.changes]).toEqual(whole.changes);
    }
  });
});

describe('open-loop schedules report their decisions too', () => {
  it('emits curriculum.decided every step with the step signals, raise at stage boundaries', () => {
    const schedule = adaptive('scaling:[2,4]@2');
    const { decisions } = drive({ schedule }, [m(0.5, 0.5), m(0.5, 0.5), m(0.5, 0.5)]);
    expect(decisions.map((d) => [d.step, d.from, d.to, d.decision])).toEqual([[1, 2, 2, 'hold'], [2, 2, 4, 'raise'], [3, 4, 4, 'hold']]);
    expect(decisions[0]?.signals).toMatchObject({ successRate: 0.5, truncationRate: 0.5, successTrend: null });
  });
});
