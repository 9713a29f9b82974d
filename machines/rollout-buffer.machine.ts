/**
 * The rollout buffer: a ledger in which every started episode id ends exactly once, and the
 * groups of G rollouts per task that GRPO/RLOO need. Aborted episodes are recorded in the ledger
 * but never join a group (they are never trained on); the run retries their slot.
 *
 * Bound: at most `capacity` complete groups wait for the learner. When one more completes while
 * the buffer is full, the oldest ready group is dropped and counted (`counts.dropped`): lossy on
 * purpose, since stale groups are the least useful, and never silent. The run actor applies
 * backpressure first (`hasRoom`), so this only happens when the learner falls behind.
 */
import { assign, emit, setup } from 'xstate';
import type { EpisodeOutcome } from './outcome.ts';
import type { EpisodeOutput } from './episode.machine.ts';

/** Input of the rollout buffer machine: the group size G and how many complete groups it holds. */
export interface BufferInput {
  /** G: rollouts per task that make one group. */
  readonly groupSize: number;
  /** Most complete groups held for the learner. */
  readonly capacity: number;
}

/**
 * The rollouts of one task that GRPO/RLOO compare (`groupKey`), complete when `members` reaches
 * `expected`.
 */
export interface Group {
  readonly groupKey: string;
  /** Members still expected; shrinks when a slot gives up after its retries. */
  readonly expected: number;
  readonly members: readonly EpisodeOutput[];
}

/**
 * The buffer's ledger: episodes started and ended, groups dropped for room, protocol violations,
 * and outcomes.
 */
export interface LedgerCounts {
  readonly started: number;
  readonly ended: number;
  readonly dropped: number;
  readonly violations: number;
  readonly outcomes: Readonly<Record<EpisodeOutcome, number>>;
}

/** An episode that started and has not ended yet. */
export interface OpenEpisode {
  readonly episodeId: string;
  readonly groupKey: string;
}

/**
 * The ledger and the groups are arrays, not records keyed by id: they hold at most the running
 * episodes and their groups, and copying a record while adding or removing a key costs V8 a new
 * hidden class each time (tens of µs at 64 keys), where an array copies pointers.
 */
export interface BufferContext extends BufferInput {
  /** Episodes started and not yet ended, with the group each belongs to. */
  readonly open: readonly OpenEpisode[];
  /** Groups still waiting for members, in the order they were opened. */
  readonly filling: readonly Group[];
  readonly ready: readonly Group[];
  readonly counts: LedgerCounts;
}

/**
 * Events of the rollout buffer machine: an episode started or ended, a slot given up, a group
 * taken by the learner.
 */
export type BufferEvent =
  | { type: 'EPISODE.STARTED'; episodeId: string; groupKey: string }
  | { type: 'EPISODE.ENDED'; output: EpisodeOutput }
  | { type: 'GROUP.SHRINK'; groupKey: string }
  | { type: 'TAKE'; count: number };

export type BufferEmitted = { type: 'buffer.violation'; episodeId: string; reason: string };

const emptyOutcomes = { success: 0, failure: 0, truncated: 0, aborted: 0 };

const openIndex = (context: BufferContext, episodeId: string) => context.open.findIndex((entry) => entry.episodeId === episodeId);
const fillingIndex = (context: BufferContext, groupKey: string) => context.filling.findIndex((group) => group.groupKey === groupKey);

/** Moves the group at `at` in `filling` to `ready` when it has all its members, dropping the oldest ready one if full. */
function settleGroup(context: BufferContext, at: number, group: Group): Pick<BufferContext, 'filling' | 'ready' | 'counts'> {
  if (group.members.length < group.expected) {
    return { filling: context.filling.with(at, group), ready: context.ready, counts: context.counts };
  }
  const filling = context.filling.toSpliced(at, 1);
  if (group.members.length === 0) return { filling, ready: context.ready, counts: context.counts };
  const ready = [...context.ready, group];
  const overflow = Math.max(0, ready.length - context.capacity);
  return {
    filling,
    ready: ready.slice(overflow),
    counts: { ...context.counts, dropped: context.counts.dropped + overflow },
  };
}

/** Whether one more group may start without overflowing: ready plus filling groups stay under capacity. */
export function hasRoom(context: BufferContext): boolean {
  return context.ready.length + context.filling.length < context.capacity;
}

/**
 * The rollout buffer as a machine: a ledger in which every started episode ends once, and the
 * bounded queue of complete groups for the learner.
 */
export const rolloutBufferMachine = setup({
  types: {
    input: {} as BufferInput,
    context: {} as BufferContext,
    events: {} as BufferEvent,
    emitted: {} as BufferEmitted,
  },
  guards: {
    isOpen: ({ context }, episodeId: string) => openIndex(context, episodeId) >= 0,
  },
}).createMachine({
  id: 'rolloutBuffer',
  context: ({ input }) => ({
    ...input,
    open: [],
    filling: [],
    ready: [],
    counts: { started: 0, ended: 0, dropped: 0, violations: 0, outcomes: emptyOutcomes },
  }),
  initial: 'collecting',
  states: {
    collecting: {
      on: {
        'EPISODE.STARTED': [
          {
            guard: { type: 'isOpen', params: ({ event }) => event.episodeId },
            actions: [
              assign({ counts: ({ context }) => ({ ...context.counts, violations: context.counts.violations + 1 }) }),
              emit(({ event }) => ({ type: 'buffer.violation' as const, episodeId: event.episodeId, reason: 'started twice' })),
            ],
          },
          {
            actions: assign(({ context, event }) => ({
              open: [...context.open, { episodeId: event.episodeId, groupKey: event.groupKey }],
              filling:
                fillingIndex(context, event.groupKey) >= 0
                  ? context.filling
                  : [...context.filling, { groupKey: event.groupKey, expected: context.groupSize, members: [] }],
              counts: { ...context.counts, started: context.counts.started + 1 },
            })),
          },
        ],
        'EPISODE.ENDED': [
          {
            guard: { type: 'isOpen', params: ({ event }) => event.output.episodeId },
            actions: assign(({ context, event }) => {
              const { output } = event;
              const opened = openIndex(context, output.episodeId);
              const groupKey = context.open[opened]?.groupKey ?? '';
              const open = context.open.toSpliced(opened, 1);
              const counts = {
                ...context.counts,
                ended: context.counts.ended + 1,
                outcomes: { ...context.counts.outcomes, [output.outcome]: context.counts.outcomes[output.outcome] + 1 },
              };
              const at = fillingIndex(context, groupKey);
              const group = context.filling[at];
              if (output.outcome === 'aborted' || !group) return { open, counts };
              return { open, ...settleGroup({ ...context, counts }, at, { ...group, members: [...group.members, output] }) };
            }),
          },
          {
            actions: [
              assign({ counts: ({ context }) => ({ ...context.counts, violations: context.counts.violations + 1 }) }),
              emit(({ event }) => ({
                type: 'buffer.violation' as const,
                episodeId: event.output.episodeId,
                reason: 'ended without being open (unknown or ended twice)',
              })),
            ],
          },
        ],
        'GROUP.SHRINK': {
          actions: assign(({ context, event }) => {
            const at = fillingIndex(context, event.groupKey);
            const group = context.filling[at];
            if (!group) return {};
            return settleGroup(context, at, { ...group, expected: group.expected - 1 });
          }),
        },
        TAKE: { actions: assign({ ready: ({ context, event }) => context.ready.slice(event.count) }) },
      },
    },
  },
});
