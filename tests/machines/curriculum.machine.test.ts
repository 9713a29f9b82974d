import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { curriculumMachine } from '../../machines/curriculum.machine.ts';
import { emitted } from './emitted.ts';
import { horizonAt, parseSchedule, type Schedule } from '../../machines/schedule.ts';

const scaling: Schedule = { kind: 'scaling', horizons: [6, 13, 20], every: 100 };

describe('schedules', () => {
  it('parses fixed and scaling forms', () => {
    expect(parseSchedule('fixed:20')).toEqual({ ok: true, value: { kind: 'fixed', horizon: 20 } });
    expect(parseSchedule('scaling:[6,13,20]@100')).toEqual({ ok: true, value: scaling });
    expect(parseSchedule(' scaling:[2, 4]@3 ')).toEqual({ ok: true, value: { kind: 'scaling', horizons: [2, 4], every: 3 } });
  });

  it('rejects bad schedules with a message saying what was wrong', () => {
    for (const bad of ['fixed:0', 'fixed:x', 'scaling:[]@3', 'scaling:[2,a]@3', 'scaling:[2,4]@0', 'linear:3', '',
      'adaptive:', 'adaptive:min=6', 'adaptive:min=6,max=4', 'adaptive:min=6,max=20,speed=2', 'adaptive:min=6,max=20,window=1',
      'adaptive:min=6,max=20,trunc=1.5', 'adaptive:min=6,min=7,max=20', 'adaptive:min=x,max=20']) {
      const parsed = parseSchedule(bad);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error.length).toBeGreaterThan(10);
    }
  });

  it('follows the released stepwise semantics: steps 1..Δ use h0', () => {
    expect([1, 100, 101, 200, 201, 10_000].map((step) => horizonAt(scaling, step))).toEqual([6, 6, 13, 13, 20, 20]);
  });
});

describe('curriculum machine', () => {
  it('emits horizon.changed exactly at stage boundaries', () => {
    const schedule: Schedule = { kind: 'scaling', horizons: [2, 4], every: 3 };
    let [snapshot] = initialTransition(curriculumMachine, { schedule });
    const horizons = [snapshot.context.horizon];
    const changes: unknown[] = [];
    for (let step = 1; step <= 6; step++) {
      const [next, actions] = transition(curriculumMachine, snapshot, { type: 'LEARNER.STEPPED', step });
      snapshot = next;
      horizons.push(snapshot.context.horizon);
      changes.push(...emitted(actions).filter((e) => e.type === 'horizon.changed'));
    }
    // horizons[k] is the horizon of the rollouts for learner step k+1.
    expect(horizons).toEqual([2, 2, 2, 4, 4, 4, 4]);
    expect(changes).toEqual([{ type: 'horizon.changed', from: 2, to: 4, step: 4, reason: expect.stringContaining('scaling:[2,4]@3') }]);
  });

  it('resumes exactly from a checkpointed step (no early advance)', () => {
    const schedule: Schedule = { kind: 'scaling', horizons: [2, 4], every: 3 };
    const [resumed] = initialTransition(curriculumMachine, { schedule, completedSteps: 3 });
    expect(resumed.context.horizon).toBe(4);
    const [atTwo] = initialTransition(curriculumMachine, { schedule, completedSteps: 2 });
    expect(atTwo.context.horizon).toBe(2);
  });

  it('delivers emitted changes to listeners of the running actor', () => {
    const actor = createActor(curriculumMachine, { input: { schedule: { kind: 'scaling', horizons: [1, 5], every: 1 } } }).start();
    const seen: number[] = [];
    actor.on('horizon.changed', (event) => seen.push(event.to));
    actor.send({ type: 'LEARNER.STEPPED', step: 1 });
    actor.send({ type: 'LEARNER.STEPPED', step: 2 });
    expect(seen).toEqual([5]);
    actor.stop();
  });
});
