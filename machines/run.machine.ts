/**
 * The run: a queue of task slots, at most `concurrency` episodes at a time, each started with
 * the horizon in force when it starts. An aborted episode is retried on another env slot up to
 * `maxRetries` times, and one aborted because its env server was lost (`env_lost`) up to
 * `maxLostRetries` more times, counted apart: a server dying says nothing about the slot, and its
 * retry runs on a live server of the pool. A slot then settles exactly once, with the outcome of
 * its last attempt. Episodes never wait for one another (AgentGym-RL's lock-step rounds did).
 *
 * The run finishes once every slot has settled. `startEpisode` and `stopEpisodes` are effects,
 * provided by the rollout system (actors/rollout-system.ts); finished episodes come back as
 * `EPISODE.DONE`.
 */
import { assign, enqueueActions, setup } from 'xstate';
import type { EpisodeOutput } from './episode.machine.ts';
import { deriveSeed } from './seed.ts';

/** One task slot of a run: its index, task and group. */
export interface SlotSpec {
  readonly slot: number;
  readonly taskId: string;
  /** Episodes with the same key form one group (the G rollouts of a task). */
  readonly groupKey: string;
}

/**
 * What the run machine asks its actors to start: a slot's episode with its id, attempt, seed and
 * horizon.
 */
export interface EpisodeLaunch extends SlotSpec {
  readonly episodeId: string;
  readonly attempt: number;
  readonly seed: number;
  readonly maxTurns: number;
}

/** Input of the run machine: its id, seed, concurrency, horizon, retry limits and task slots. */
export interface RunInput {
  readonly runId: string;
  readonly seed: number;
  readonly concurrency: number;
  readonly horizon: number;
  readonly maxRetries: number;
  /** Retries of a slot whose attempts were aborted as `env_lost`, on top of `maxRetries`. Default 0. */
  readonly maxLostRetries?: number;
  readonly slots: readonly SlotSpec[];
}

interface Pending extends SlotSpec {
  readonly attempt: number;
  /** How many of the attempts so far were aborted as `env_lost`. */
  readonly lost: number;
}

interface Running extends Pending {
  readonly episodeId: string;
}

export interface RunContext extends Omit<RunInput, 'slots' | 'maxLostRetries'> {
  readonly maxLostRetries: number;
  /**
   * Slots waiting to start are `queue[queueHead…]`. Starting one moves the head instead of
   * copying the rest of the queue, which made a run quadratic in its episodes.
   */
  readonly queue: readonly Pending[];
  readonly queueHead: number;
  /**
   * At most `concurrency` entries. An array rather than a record keyed by episode id: copying a
   * record while adding or removing a key gives V8 a new hidden class each time (tens of µs at 64
   * keys); an array copies pointers.
   */
  readonly running: readonly Running[];
  readonly runningCount: number;
  readonly launched: number;
  readonly settled: number;
  readonly stopping: boolean;
}

/** Events the run machine takes: slots to run, episodes done, horizon changes, and the stop signal. */
export type RunEventIn =
  | { type: 'EPISODE.DONE'; output: EpisodeOutput }
  | { type: 'HORIZON.SET'; horizon: number }
  | { type: 'STOP'; reason: string };

export type RunEmitted = { type: 'slot.settled'; slot: number; output: EpisodeOutput; attempts: number };

const runSetup = setup({
  types: {
    input: {} as RunInput,
    context: {} as RunContext,
    events: {} as RunEventIn,
    emitted: {} as RunEmitted,
  },
  actions: {
    // Effects, provided by actors/rollout-system.ts.
    startEpisode: (_, _launch: EpisodeLaunch) => {},
    stopEpisodes: (_, _reason: string) => {},
  },
  guards: {
    finishes: ({ context }) => waiting(context) === 0 && context.runningCount === 0,
  },
});

/** Starts queued slots while there is room; the seed depends on the slot only, so a retry replays it. */
const fill = runSetup.enqueueActions(({ context, enqueue }) => {
  if (context.stopping) return;
  const { queue } = context;
  let { runningCount, launched, queueHead } = context;
  if (queueHead >= queue.length || runningCount >= context.concurrency) return;
  const running = [...context.running];
  while (queueHead < queue.length && runningCount < context.concurrency) {
    const next = queue[queueHead] as Pending;
    queueHead += 1;
    // Named by slot and attempt, not launch order, so the same episode has the same id in every
    // run of the same slots (LLM record/replay and resumed evaluations key on it).
    const episodeId = `${context.runId}-s${next.slot}a${next.attempt}`;
    launched += 1;
    runningCount += 1;
    running.push({ slot: next.slot, taskId: next.taskId, groupKey: next.groupKey, attempt: next.attempt, lost: next.lost, episodeId });
    enqueue({
      type: 'startEpisode',
      params: {
        slot: next.slot,
        taskId: next.taskId,
        groupKey: next.groupKey,
        attempt: next.attempt,
        episodeId,
        seed: deriveSeed(context.seed, next.slot),
        maxTurns: context.horizon,
      },
    });
  }
  enqueue.assign({ queueHead, running, runningCount, launched });
});

/** Slots still waiting to start. */
const waiting = (context: RunContext) => context.queue.length - context.queueHead;

const pending = (slot: SlotSpec, attempt: number, lost = 0): Pending => ({ slot: slot.slot, taskId: slot.taskId, groupKey: slot.groupKey, attempt, lost });

/**
 * Whether an aborted attempt is retried, and the lost-server retries used by then. An `env_lost`
 * abort spends the `maxLostRetries` budget first, then the general one; any other abort spends
 * the general one (`maxRetries`). Earlier attempts were all aborted, so the general retries used
 * so far are the attempts that did not spend the lost budget.
 */
function retryOf(done: Running, output: EpisodeOutput, context: RunContext): { retry: boolean; lost: number } {
  if (output.outcome !== 'aborted' || context.stopping) return { retry: false, lost: done.lost };
  if (output.abortReason === 'env_lost' && done.lost < context.maxLostRetries) return { retry: true, lost: done.lost + 1 };
  return { retry: done.attempt - done.lost < context.maxRetries, lost: done.lost };
}

/**
 * The run as a machine: at most `concurrency` episodes at a time over its task slots, each aborted
 * one retried (apart for lost env servers), every slot settled once.
 */
export const runMachine = runSetup.createMachine({
  id: 'run',
  context: ({ input }) => {
    const { slots, ...rest } = input;
    return {
      ...rest,
      maxLostRetries: input.maxLostRetries ?? 0,
      queue: slots.map((slot) => pending(slot, 0)),
      queueHead: 0,
      running: [],
      runningCount: 0,
      launched: 0,
      settled: 0,
      stopping: false,
    };
  },
  initial: 'running',
  states: {
    running: {
      entry: fill,
      always: { guard: 'finishes', target: 'finished' },
      on: {
        'HORIZON.SET': { actions: assign({ horizon: ({ event }) => event.horizon }) },
        STOP: {
          actions: [
            assign({ stopping: true, queue: [], queueHead: 0 }),
            { type: 'stopEpisodes', params: ({ event }) => event.reason },
          ],
        },
        'EPISODE.DONE': {
          actions: [
            enqueueActions(({ context, event, enqueue }) => {
              const at = context.running.findIndex((entry) => entry.episodeId === event.output.episodeId);
              if (at < 0) return; // not ours, or already settled: the ledger reports it
              const done = context.running[at] as Running;
              const running = context.running.toSpliced(at, 1);
              const { retry, lost } = retryOf(done, event.output, context);
              if (retry) {
                // Retried first, so a flaky env slot does not push the slot to the end of the run.
                enqueue.assign({
                  running,
                  runningCount: context.runningCount - 1,
                  queue: [pending(done, done.attempt + 1, lost), ...context.queue.slice(context.queueHead)],
                  queueHead: 0,
                });
                return;
              }
              enqueue.assign({ running, runningCount: context.runningCount - 1, settled: context.settled + 1 });
              enqueue.emit({ type: 'slot.settled', slot: done.slot, output: event.output, attempts: done.attempt + 1 });
            }),
            fill,
          ],
        },
      },
    },
    finished: { type: 'final' },
  },
  output: ({ context }) => ({ settled: context.settled, launched: context.launched, stopped: context.stopping }),
});

