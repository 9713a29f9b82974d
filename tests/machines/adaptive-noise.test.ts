// Issue 25, item 5: the adaptive curriculum's collapse test fired on sampling noise
// (docs/experiments/horizon.md). On synthetic metrics of known truth
// (experiments/curriculum/adaptive-noise-sim.ts): a stationary policy almost never steps back, a
// real collapse still does, the noise bar counts task groups rather than episodes, turns are read
// on successful episodes, and checkpoints whose history lacks the new fields still resume.
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { COLLAPSE_DROP, COLLAPSE_Z, decideAdaptive, emptyMemory, stepSignals, successTrendSE, trend, type AdaptiveMemory, type AdaptiveVerdict } from '../../machines/adaptive-horizon.ts';
import { curriculumMachine, type CurriculumState } from '../../machines/curriculum.machine.ts';
import { parseSchedule, type AdaptiveSchedule } from '../../machines/schedule.ts';
import { noisyRun, noisyWindows, withoutNoiseFields, type StepTruth } from '../../experiments/curriculum/adaptive-noise-sim.ts';

type Metrics = Record<string, number>;

function adaptive(text: string): AdaptiveSchedule {
  const parsed = parseSchedule(text);
  if (!parsed.ok || parsed.value.kind !== 'adaptive') throw new Error(`not an adaptive schedule: ${text}`);
  return parsed.value;
}

/**
 * Feeds a run step by step at the maximum horizon (so that a flat, binding window holds instead of
 * raising); stops at the first step back. Returns every verdict until then.
 */
function feed(schedule: AdaptiveSchedule, run: readonly Metrics[]): AdaptiveVerdict[] {
  const verdicts: AdaptiveVerdict[] = [];
  let memory: AdaptiveMemory = emptyMemory;
  for (const [i, metrics] of run.entries()) {
    const verdict = decideAdaptive(schedule, schedule.max, memory, i + 1, stepSignals(i + 1, metrics));
    verdicts.push(verdict);
    if (verdict.decision === 'back') break;
    memory = verdict.memory;
  }
  return verdicts;
}

const steppedBack = (schedule: AdaptiveSchedule, run: readonly Metrics[]): boolean => feed(schedule, run).at(-1)?.decision === 'back';
const share = <T>(items: readonly T[], test: (item: T) => boolean): number => items.filter(test).length / items.length;
/** The last verdict of a window fed from an empty memory: the decision on exactly that window. */
const lastOf = (schedule: AdaptiveSchedule, window: readonly Metrics[]): AdaptiveVerdict => feed(schedule, window).at(-1)!;

// The experiment's setting: 8 tasks × 4 rollouts = 32 episodes per step, a window of 5, horizon 20.
const schedule = adaptive('adaptive:min=6,max=20');
const stationary: StepTruth = { success: 0.4, horizon: 20, tasks: 8, group: 4 };

describe('a stationary policy observed through sampling noise (issue 25)', () => {
  const windows = noisyWindows(25, 2000, schedule.window, () => stationary);

  it('almost never steps back, where the rule before the fix did in a fifth of the windows', () => {
    const now = share(windows, (w) => lastOf(schedule, w).decision === 'back');
    // The same metrics as a producer from before issue 25 gave them get the earlier rule.
    const before = share(windows, (w) => lastOf(schedule, w.map(withoutNoiseFields)).decision === 'back');
    expect(now).toBeLessThan(0.02);
    expect(before).toBeGreaterThan(0.1);
  });

  it('almost never steps back over whole runs of 30 steps (sliding windows)', () => {
    const runs = Array.from({ length: 300 }, (_, r) => noisyRun(r, 30, () => stationary));
    expect(share(runs, (run) => steppedBack(schedule, run))).toBeLessThan(0.02);
  });

  it('holds on a noise-sized drop and says that it is within noise', () => {
    const dropped = windows.map((w) => lastOf(schedule, w)).find((v) => (v.signals.successTrend ?? 0) < -0.2);
    expect(dropped?.decision).toBe('hold');
    expect(dropped?.signals.collapseDrop).toBeCloseTo(COLLAPSE_Z * dropped!.signals.successTrendSE!, 10);
    expect(dropped?.reason).toMatch(/^success falling \(-0\.\d\d over 5 steps\), not a collapse: within noise \(bar -0\.\d\d = max\(0\.1, 2\.5 SE 0\.\d\d\)\)/);
  });
});

describe('a real collapse', () => {
  // 5 steps at 0.6, then over 5 steps success falls to 0.2 while successful episodes take twice as
  // long (the policy wanders before it succeeds), then 5 steps there. 32 tasks × 4 per step: at 8
  // tasks a 5-step window cannot tell a 0.4 drop from the task draw (docs/curriculum.md).
  const collapse = (tasks: number, window: number) => (i: number): StepTruth => {
    const f = Math.min(1, Math.max(0, (i - window) / (window - 1)));
    return { success: 0.6 - 0.4 * f, stretch: 1 + f, horizon: 20, tasks, group: 4 };
  };

  it('steps back in nearly every run, on falling success and rising turns of successful episodes', () => {
    const runs = Array.from({ length: 200 }, (_, r) => noisyRun(1000 + r, 15, collapse(32, 5)));
    const backs = runs.map((run) => feed(schedule, run).at(-1)!).filter((v) => v.decision === 'back');
    expect(backs.length / runs.length).toBeGreaterThan(0.9);
    expect(backs[0]?.reason).toMatch(/^collapse: success -0\.\d\d over 5 steps \(bar -0\.\d\d = max\(0\.1, 2\.5 SE 0\.\d\d\)\) with turns on successes \+\d\.\d\d: step back to 13/);
    // The same setting without a collapse stays put.
    const flat = Array.from({ length: 200 }, (_, r) => noisyRun(3000 + r, 15, () => ({ ...stationary, tasks: 32 })));
    expect(share(flat, (run) => steppedBack(schedule, run))).toBeLessThan(0.02);
  });

  it('is also caught at 16 tasks per step with a window of 10', () => {
    const long = adaptive('adaptive:min=6,max=20,window=10');
    const runs = Array.from({ length: 100 }, (_, r) => noisyRun(2000 + r, 30, collapse(16, 10)));
    expect(share(runs, (run) => steppedBack(long, run))).toBeGreaterThan(0.9);
  });
});

describe('the noise bar', () => {
  it('is the binomial standard error of the trend, with n = task groups', () => {
    const step = (successRate: number, groups: number | null, finished: number | null) => ({ step: 0, successRate, meanTurns: 5, truncationRate: 0.5, entropy: null, groups, finished });
    // Var(trend) = ((W − 1)/Σc²)² Σ c² p(1 − p)/n; W = 5, Σc² = 10, p = 0.5, n = 8: 4 · √(10 · 0.25/8) / 10.
    const flat = [0.5, 0.5, 0.5, 0.5, 0.5];
    expect(successTrendSE(flat.map((s) => step(s, 8, 32)))).toBeCloseTo((4 * Math.sqrt(10 * 0.25 / 8)) / 10, 12);
    // Without groups it falls back to finished episodes; a step with neither counts with the smallest known n.
    expect(successTrendSE(flat.map((s) => step(s, null, 8)))).toBeCloseTo((4 * Math.sqrt(10 * 0.25 / 8)) / 10, 12);
    expect(successTrendSE(flat.map((s, i) => step(s, i === 2 ? 8 : null, null)))).toBeCloseTo((4 * Math.sqrt(10 * 0.25 / 8)) / 10, 12);
    expect(successTrendSE(flat.map((s) => step(s, null, null)))).toBeNull();
    // p is the window's pooled success, weighted by n.
    expect(successTrendSE([0.2, 0.4, 0.6].map((s) => step(s, 10, null)))).toBeCloseTo((2 * Math.sqrt(2 * 0.24 / 10)) / 2, 12);
  });

  it('keeps its nominal false-alarm rate on an all-or-nothing task mix, where n = episodes would not', () => {
    // Every task either always or never solved: the G rollouts of a group carry one draw of information.
    const windows = noisyWindows(26, 3000, 5, () => ({ ...stationary, spread: 20 }));
    const past = (withGroups: boolean) => share(windows, (w) => {
      const history = w.map((m, i) => stepSignals(i, withGroups ? m : { ...m, groups: Number.NaN })!);
      return trend(history.map((s) => s.successRate)) <= -Math.max(COLLAPSE_DROP, COLLAPSE_Z * successTrendSE(history)!);
    });
    // One-sided normal tail at z = 2.5: 0.6 %.
    expect(past(true)).toBeLessThan(0.015);
    expect(past(false)).toBeGreaterThan(0.05);
  });
});

describe('turns on successful episodes', () => {
  it('do not rise with every noise drop of success, as turns over all episodes do', () => {
    // At a binding horizon a failure runs to the horizon: all-episode turns are success mirrored.
    const verdicts = noisyWindows(27, 2000, 5, () => stationary).map((w) => lastOf(schedule, w));
    const drops = verdicts.filter((v) => (v.signals.successTrend ?? 0) <= -COLLAPSE_DROP);
    expect(drops.length).toBeGreaterThan(300);
    expect(drops.every((v) => v.signals.successTurnsTrend !== null)).toBe(true);
    const rising = 0.1 * stationary.horizon;
    expect(share(drops, (v) => (v.signals.turnsTrend ?? 0) >= rising)).toBeGreaterThan(0.5);
    expect(share(drops, (v) => (v.signals.successTurnsTrend ?? 0) >= rising)).toBeLessThan(0.3);
  });

  it('are read from the metrics line; steps without a success measure nothing', () => {
    expect(stepSignals(3, { successRate: 0.25, meanTurns: 9, successTurns: 4.5, truncationRate: 0.5, episodes: 32, aborted: 2, groups: 8 }))
      .toEqual({ step: 3, successRate: 0.25, meanTurns: 9, truncationRate: 0.5, entropy: null, successTurns: 4.5, finished: 30, groups: 8 });
    expect(stepSignals(3, { successRate: 0, meanTurns: 20, truncationRate: 1, episodes: 32, aborted: 0 }))
      .toMatchObject({ successTurns: null, finished: 32, groups: null });
    // A window with one success-less step still reads turns on successes, over the other steps.
    const window = [4, 5, null, 7, 8].map((turns, i) => ({ successRate: turns === null ? 0 : 0.3, meanTurns: 15, truncationRate: 0.7, episodes: 32, aborted: 0, groups: 8, ...(turns === null ? {} : { successTurns: turns }) }));
    expect(lastOf(schedule, window).signals.successTurnsTrend).toBeCloseTo(4, 10);
  });
});

describe('checkpoints from before issue 25', () => {
  // A history as state.json held it then: no successTurns, finished or groups.
  const old = (step: number, successRate: number, meanTurns: number) => ({ step, successRate, meanTurns, truncationRate: 0.7, entropy: 0.4 });
  const state: CurriculumState = JSON.parse(JSON.stringify({
    completedSteps: 4, horizon: 20,
    adaptive: { history: [old(1, 0.5, 12), old(2, 0.45, 13), old(3, 0.35, 14.5), old(4, 0.3, 15)], raiseBlockedUntil: 0 },
    lastDecision: null,
  }));
  const now = (successRate: number, meanTurns: number): Metrics => ({ successRate, meanTurns, successTurns: 6, truncationRate: 0.7, episodes: 32, aborted: 0, groups: 8, entropy: 0.4, updates: 1 });

  it('resume: old steps count with the task groups of new ones, turns as they were read then', () => {
    let [snapshot] = initialTransition(curriculumMachine, { schedule, state });
    [snapshot] = transition(curriculumMachine, snapshot, { type: 'LEARNER.STEPPED', step: 5, metrics: now(0.2, 16) });
    const decision = snapshot.context.lastDecision!;
    // A drop of 0.30 with all-episode turns +4.0: the earlier rule stepped back on it; at 8 tasks per step it is noise.
    expect(decision.signals.successTrend).toBeCloseTo(-0.3, 10);
    expect(decision.signals.successTurnsTrend).toBeNull();
    expect(decision.signals.turnsTrend).toBeGreaterThan(2);
    expect(decision.signals.successTrendSE).toBeGreaterThan(0.15);
    expect(decision).toMatchObject({ decision: 'hold', to: 20 });
    expect(decision.reason).toMatch(/not a collapse: within noise/);
    // Once the window holds only new steps, turns are read on successes.
    for (let step = 6; step <= 9; step++) [snapshot] = transition(curriculumMachine, snapshot, { type: 'LEARNER.STEPPED', step, metrics: now(0.3, 15) });
    expect(snapshot.context.lastDecision?.signals.successTurnsTrend).toBe(0);
  });

  it('without episode counts anywhere the earlier fixed bar applies, and the reason says so', () => {
    const verdict = decideAdaptive(schedule, 20, state.adaptive!, 5, stepSignals(5, withoutNoiseFields(now(0.2, 16))));
    expect(verdict).toMatchObject({ decision: 'back', to: 13, signals: { successTrendSE: null, collapseDrop: COLLAPSE_DROP } });
    expect(verdict.reason).toMatch(/^collapse: success -0\.30 over 5 steps \(no episode counts, fixed bar -0\.10\) with turns \+4\.00/);
  });
});
