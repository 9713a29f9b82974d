// The xstate fast paths of patches/xstate+5.33.3.patch: installed, and semantics unchanged on the
// statechart features they touch (history targets, eventless transitions, nested and parallel
// configurations, tags, several actors of one machine).
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';

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

describe('xstate with the fast paths', () => {
  it('is the patched build (npm postinstall applies patches/)', () => {
    const node = machine.root.states.work as unknown as { _candidates?: unknown };
    expect(node._candidates).toBeInstanceOf(Map);
  });

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

  it('gives each actor of one machine its own value and tags; shared values are frozen', () => {
    const first = createActor(machine).start();
    const second = createActor(machine).start();
    first.send({ type: 'NEXT' });
    first.send({ type: 'NEXT' });
    expect(first.getSnapshot().value).toEqual({ work: { c: { left: 'l1', right: 'r1' } } });
    expect(second.getSnapshot().value).toEqual({ work: 'a' });
    expect(first.getSnapshot().hasTag('right')).toBe(true);
    expect(second.getSnapshot().hasTag('right')).toBe(false);
    expect(second.getSnapshot().hasTag('busy')).toBe(true);
    expect(Object.isFrozen(first.getSnapshot().value)).toBe(true);
    // Tags are a fresh set per snapshot, as in the published build.
    expect(first.getSnapshot().tags).not.toBe(createActor(machine).start().getSnapshot().tags);
    second.send({ type: 'LEAVE' });
    second.send({ type: 'BUMP' });
    expect(second.getSnapshot().value).toBe('away');
    expect(second.getSnapshot().context.count).toBe(1);
    expect(second.getSnapshot().hasTag('busy')).toBe(false);
  });
});
