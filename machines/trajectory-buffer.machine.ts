/**
 * The trajectory buffer as a statechart: the ledger of the trajectory groups (learner/
 * trajectory-group.ts) between the producers and the learner. Pure, and its context is JSON: each
 * group is known by its key (step, index), the version of the weights that produced it and its
 * producer; the groups' episodes stay with the buffer actor (actors/buffer/trajectory-buffer.ts).
 *
 * A group goes   pending ─OFFER→ ready ─TAKE→ taken
 *                   │              └─ADVANCE→ dropped-stale (collected again)
 *                   └─CANCEL (its producer failed or stopped)
 * `pending` is work handed to a producer, counted against the capacity so producers wait for
 * room before starting (`room`). An offered group is dropped as stale when the learner's version
 * minus its `policyVersion` exceeds `maxStaleness`: versions only grow, so a group stale now
 * would be stale when the learner takes it; its key becomes free for a re-collection. A second
 * offer of a key that is ready or taken is dropped as a duplicate (a retried worker may resend):
 * the first is kept. Partial groups never come here: producers offer whole groups only.
 *
 * Steps are taken in order, each once all `groupsPerStep` of its groups are ready; the keys of
 * taken steps are forgotten (`takenThrough` answers for them), so the context stays as small as
 * the work in flight.
 */
import { assign, emit, enqueueActions, setup } from 'xstate';

export interface TrajectoryBufferInput {
  /** Most groups pending or ready at once. */
  readonly capacity: number;
  /** Groups of one learner step (the run's tasksPerStep). */
  readonly groupsPerStep: number;
  /** Largest learner version − policy version a trained group may have (0: synchronous). */
  readonly maxStaleness: number;
  /** The learner's version now. */
  readonly learnerVersion: number;
  /** Steps the learner has already trained (a resumed run's checkpoint step). */
  readonly takenThrough: number;
}

/** A group as the ledger knows it. */
export interface GroupEntry {
  readonly step: number;
  readonly index: number;
  readonly state: 'pending' | 'ready';
  /** The producing weights' version (of a ready group). */
  readonly policyVersion?: number;
  readonly producer?: string;
}

export interface TrajectoryBufferCounts {
  /** Groups offered, duplicates and stale ones included. */
  readonly offered: number;
  readonly trained: number;
  readonly droppedStale: number;
  readonly droppedDuplicate: number;
}

export interface TrajectoryBufferContext extends TrajectoryBufferInput {
  readonly entries: readonly GroupEntry[];
  readonly counts: TrajectoryBufferCounts;
  /** Staleness (learner version − policy version) → groups trained at it. */
  readonly stalenessHistogram: Readonly<Record<string, number>>;
}

/** What an OFFER carries of a group: its key, version and producer (not its episodes). */
export interface OfferedGroup {
  readonly step: number;
  readonly index: number;
  readonly policyVersion: number;
  readonly producer: string;
}

export type TrajectoryBufferEvent =
  | { type: 'REQUEST'; step: number; indices: readonly number[] }
  | { type: 'CANCEL'; step: number; indices: readonly number[] }
  | { type: 'OFFER'; group: OfferedGroup }
  | { type: 'ADVANCE'; version: number }
  | { type: 'TAKE'; step: number };

export type TrajectoryBufferEmitted =
  | { type: 'group.ready'; step: number; index: number }
  | { type: 'group.dropped'; step: number; index: number; reason: 'stale' | 'duplicate'; policyVersion: number; producer: string }
  | { type: 'step.taken'; step: number };

const sameKey = (a: { step: number; index: number }, b: { step: number; index: number }) => a.step === b.step && a.index === b.index;

export function isStale(context: Pick<TrajectoryBufferContext, 'learnerVersion' | 'maxStaleness'>, policyVersion: number): boolean {
  return context.learnerVersion - policyVersion > context.maxStaleness;
}

/** Groups pending or ready. */
export function fill(context: TrajectoryBufferContext): number {
  return context.entries.length;
}

/** Groups a producer may still be asked for without overflowing the capacity. */
export function room(context: TrajectoryBufferContext): number {
  return Math.max(0, context.capacity - fill(context));
}

/** Whether `groups` more groups (default one) fit. */
export function hasRoom(context: TrajectoryBufferContext, groups = 1): boolean {
  return room(context) >= groups;
}

export function readyCount(context: TrajectoryBufferContext, step?: number): number {
  return context.entries.filter((e) => e.state === 'ready' && (step === undefined || e.step === step)).length;
}

/** Whether every group of `step` is ready (the learner may take it). */
export function stepReady(context: TrajectoryBufferContext, step: number): boolean {
  return readyCount(context, step) === context.groupsPerStep;
}

/** Keys of `step` with no entry: neither pending nor ready (to be requested, e.g. after a stale drop). */
export function missing(context: TrajectoryBufferContext, step: number): number[] {
  if (step <= context.takenThrough) return [];
  const have = new Set(context.entries.filter((e) => e.step === step).map((e) => e.index));
  return Array.from({ length: context.groupsPerStep }, (_, i) => i).filter((i) => !have.has(i));
}

function offer(context: TrajectoryBufferContext, group: OfferedGroup): { context: TrajectoryBufferContext; outcome: 'ready' | 'stale' | 'duplicate' } {
  const counts = { ...context.counts, offered: context.counts.offered + 1 };
  const at = context.entries.findIndex((e) => sameKey(e, group));
  const duplicate = group.step <= context.takenThrough || context.entries[at]?.state === 'ready' || group.index >= context.groupsPerStep;
  if (duplicate) return { context: { ...context, counts: { ...counts, droppedDuplicate: counts.droppedDuplicate + 1 } }, outcome: 'duplicate' };
  if (isStale(context, group.policyVersion)) {
    const entries = at >= 0 ? context.entries.toSpliced(at, 1) : context.entries;
    return { context: { ...context, entries, counts: { ...counts, droppedStale: counts.droppedStale + 1 } }, outcome: 'stale' };
  }
  const entry: GroupEntry = { step: group.step, index: group.index, state: 'ready', policyVersion: group.policyVersion, producer: group.producer };
  const entries = at >= 0 ? context.entries.with(at, entry) : [...context.entries, entry];
  return { context: { ...context, entries, counts }, outcome: 'ready' };
}

export const trajectoryBufferMachine = setup({
  types: {
    input: {} as TrajectoryBufferInput,
    context: {} as TrajectoryBufferContext,
    events: {} as TrajectoryBufferEvent,
    emitted: {} as TrajectoryBufferEmitted,
  },
}).createMachine({
  id: 'trajectoryBuffer',
  context: ({ input }) => ({
    ...input,
    entries: [],
    counts: { offered: 0, trained: 0, droppedStale: 0, droppedDuplicate: 0 },
    stalenessHistogram: {},
  }),
  initial: 'open',
  states: {
    open: {
      on: {
        REQUEST: {
          actions: assign(({ context, event }) => {
            const fresh = event.indices.filter((index) => event.step > context.takenThrough && !context.entries.some((e) => sameKey(e, { step: event.step, index })));
            return { entries: [...context.entries, ...fresh.map((index): GroupEntry => ({ step: event.step, index, state: 'pending' }))] };
          }),
        },
        CANCEL: {
          actions: assign(({ context, event }) => ({
            entries: context.entries.filter((e) => !(e.state === 'pending' && e.step === event.step && event.indices.includes(e.index))),
          })),
        },
        OFFER: {
          actions: [
            emit(({ context, event }) => {
              const { outcome } = offer(context, event.group);
              const { step, index, policyVersion, producer } = event.group;
              if (outcome === 'ready') return { type: 'group.ready' as const, step, index };
              return { type: 'group.dropped' as const, step, index, reason: outcome, policyVersion, producer };
            }),
            assign(({ context, event }) => offer(context, event.group).context),
          ],
        },
        ADVANCE: {
          actions: enqueueActions(({ context, event, enqueue }) => {
            const next = { ...context, learnerVersion: Math.max(context.learnerVersion, event.version) };
            const stale = droppedOnAdvance(next);
            for (const e of stale) {
              enqueue.emit({ type: 'group.dropped', step: e.step, index: e.index, reason: 'stale', policyVersion: e.policyVersion ?? 0, producer: e.producer ?? '' });
            }
            enqueue.assign({
              learnerVersion: next.learnerVersion,
              entries: context.entries.filter((e) => !stale.includes(e)),
              counts: { ...context.counts, droppedStale: context.counts.droppedStale + stale.length },
            });
          }),
        },
        TAKE: {
          guard: ({ context, event }) => event.step === context.takenThrough + 1 && stepReady(context, event.step),
          actions: [
            assign(({ context, event }) => {
              const taken = context.entries.filter((e) => e.step === event.step);
              const histogram = { ...context.stalenessHistogram };
              for (const e of taken) {
                const key = String(context.learnerVersion - (e.policyVersion ?? context.learnerVersion));
                histogram[key] = (histogram[key] ?? 0) + 1;
              }
              return {
                takenThrough: event.step,
                entries: context.entries.filter((e) => e.step > event.step),
                counts: { ...context.counts, trained: context.counts.trained + taken.length },
                stalenessHistogram: histogram,
              };
            }),
            emit(({ event }) => ({ type: 'step.taken' as const, step: event.step })),
          ],
        },
      },
    },
  },
});

/** The ready groups the learner's version has made stale. */
export function droppedOnAdvance(context: TrajectoryBufferContext): GroupEntry[] {
  return context.entries.filter((e) => e.state === 'ready' && isStale(context, e.policyVersion ?? context.learnerVersion));
}
