// The statechart semantics of stock xstate that the runtime's machines and a patched build were
// held to (history targets, eventless transitions, nested and parallel configurations, tags,
// several actors of one machine, the order of exit, transition and entry actions, raised events,
// final states, persisted snapshots). Issue 35 dropped the patch of xstate's dist (an installed
// package never got it); these checks stay so an xstate upgrade that moves any of them is noticed.
import { describe, expect, it } from 'vitest';
import { assign, createActor, createMachine, raise, setup } from 'xstate';

const machine = setup({
  types: { context: {} as { count: number }, events: {} as { type: 'NEXT' } | { type: 'LEAVE' } | { type: 'BACK' } | { type: 'BUMP' } },
}).createMachine({
  context: { count: 0 },
  initial: 'work',
  states: {
    work: {
      initial: 'a',
      tags: ['busy'],
      states: {
        a: { on: { NEXT: 'b' } },
        b: { on: { NEXT: 'c' } },
        c: { type: 'parallel', states: { left: { initial: 'l1', states: { l1: {} } }, right: { initial: 'r1', states: { r1: { tags: ['right'] } } } } },
        hist: { type: 'history' },
      },
      on: { LEAVE: 'away' },
    },
    away: { on: { BACK: 'work.hist', BUMP: { actions: assign({ count: ({ context }) => context.count + 1 }) } } },
  },
});

// An eventless transition: `low` leaves for `high` once the count reaches 2.
const counter = setup({ types: { context: {} as { count: number }, events: {} as { type: 'BUMP' } } }).createMachine({
  context: { count: 0 },
  initial: 'low',
  states: {
    low: { on: { BUMP: { actions: assign({ count: ({ context }) => context.count + 1 }) } }, always: { guard: ({ context }) => context.count >= 2, target: 'high' } },
    high: { type: 'final' },
  },
});

describe('xstate as published', () => {
  it('restores a history target to the state that was left, each time', () => {
    const actor = createActor(machine).start();
    actor.send({ type: 'NEXT' });
    actor.send({ type: 'LEAVE' });
    actor.send({ type: 'BACK' });
    expect(actor.getSnapshot().value).toEqual({ work: 'b' });
    actor.send({ type: 'NEXT' });
    actor.send({ type: 'LEAVE' });
    actor.send({ type: 'BACK' });
    expect(actor.getSnapshot().value).toEqual({ work: { c: { left: 'l1', right: 'r1' } } });
  });

  it('takes eventless transitions once their guard holds', () => {
    const actor = createActor(counter).start();
    actor.send({ type: 'BUMP' });
    expect(actor.getSnapshot().value).toBe('low');
    actor.send({ type: 'BUMP' });
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().value).toBe('high');
  });

  it('gives each actor of one machine its own value and tags', () => {
    const first = createActor(machine).start();
    const second = createActor(machine).start();
    first.send({ type: 'NEXT' });
    first.send({ type: 'NEXT' });
    expect(first.getSnapshot().value).toEqual({ work: { c: { left: 'l1', right: 'r1' } } });
    expect(second.getSnapshot().value).toEqual({ work: 'a' });
    expect(first.getSnapshot().hasTag('right')).toBe(true);
    expect(second.getSnapshot().hasTag('right')).toBe(false);
    expect(second.getSnapshot().hasTag('busy')).toBe(true);
    // Tags are a fresh set per snapshot, as in the published build.
    expect(first.getSnapshot().tags).not.toBe(createActor(machine).start().getSnapshot().tags);
    second.send({ type: 'LEAVE' });
    second.send({ type: 'BUMP' });
    expect(second.getSnapshot().value).toBe('away');
    expect(second.getSnapshot().context.count).toBe(1);
    expect(second.getSnapshot().hasTag('busy')).toBe(false);
  });

  it('runs exit, transition and entry actions in document order, raised events and final states included', () => {
    const log: string[] = [];
    const note = (entry: string) => () => {
      log.push(entry);
    };
    const ordered = createMachine({
      id: 'o',
      initial: 'p',
      states: {
        p: {
          entry: note('enter p'),
          exit: note('exit p'),
          initial: 'a',
          states: {
            a: {
              entry: note('enter a'),
              exit: note('exit a'),
              on: {
                GO: { target: 'b', actions: note('a to b') },
                AGAIN: { target: 'a', reenter: true, actions: note('a again') },
                STAY: { actions: note('stay') },
              },
            },
            b: { entry: note('enter b'), exit: note('exit b'), on: { UP: { target: '#o.q', actions: note('b to q') } } },
          },
        },
        q: { entry: [note('enter q'), raise({ type: 'RAISED' })], on: { RAISED: { target: 'r', actions: note('raised') } } },
        r: { type: 'final', entry: note('enter r') },
      },
    });
    // Twice: a second actor of the same machine runs the same actions in the same order.
    for (let round = 0; round < 2; round++) {
      log.length = 0;
      const actor = createActor(ordered).start();
      for (const type of ['STAY', 'AGAIN', 'GO', 'UP'] as const) actor.send({ type });
      expect(log).toEqual([
        'enter p', 'enter a',
        'stay',
        'exit a', 'a again', 'enter a',
        'exit a', 'a to b', 'enter b',
        'exit b', 'exit p', 'b to q', 'enter q', 'raised', 'enter r',
      ]);
      expect(actor.getSnapshot().status).toBe('done');
      expect(actor.getSnapshot().value).toBe('r');
    }
  });

  it('moves one region of a parallel state without re-entering the other', () => {
    const log: string[] = [];
    const regions = createMachine({
      type: 'parallel',
      states: {
        left: { initial: 'l1', states: { l1: { on: { MOVE: 'l2' } }, l2: { entry: () => log.push('enter l2') } } },
        right: { initial: 'r1', states: { r1: { entry: () => log.push('enter r1'), exit: () => log.push('exit r1') } } },
      },
    });
    const actor = createActor(regions).start();
    actor.send({ type: 'MOVE' });
    expect(actor.getSnapshot().value).toEqual({ left: 'l2', right: 'r1' });
    expect(log).toEqual(['enter r1', 'enter l2']);
  });

  it('continues from a persisted snapshot', () => {
    const actor = createActor(machine).start();
    actor.send({ type: 'NEXT' });
    const restored = createActor(machine, { snapshot: actor.getPersistedSnapshot() }).start();
    expect(restored.getSnapshot().value).toEqual({ work: 'b' });
    restored.send({ type: 'NEXT' });
    expect(restored.getSnapshot().value).toEqual({ work: { c: { left: 'l1', right: 'r1' } } });
    restored.send({ type: 'LEAVE' });
    restored.send({ type: 'BACK' });
    expect(restored.getSnapshot().value).toEqual({ work: { c: { left: 'l1', right: 'r1' } } });
  });
});
