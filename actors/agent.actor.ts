/**
 * The agent actor: gathers the `ACT` requests that arrive together (same event-loop turn, or
 * while the previous batch was being decided) and asks the policy for all of them in one call,
 * so a transformer decodes them in one batched pass. One batch is in flight at a time; requests
 * queue meanwhile (bounded by the number of running episodes, one request each). A policy that
 * declares itself `concurrent` (an LLM endpoint) gets each request on its own at once instead:
 * batching would make every episode wait for the slowest call of its batch.
 */
import { createActor, fromCallback, type ActorRefFrom } from 'xstate';
import type { ActRequest, Decision, Policy } from '../policy/policy.ts';
import { errorMessage } from '../envs/error-message.ts';
import { answer, type ReplyTo } from './env.actor.ts';

/** Events the agent actor takes: `ACT` (decide for an episode; answered to its sender) and `RELEASE` (the episode ended). */
export type AgentActorEvent =
  | { type: 'ACT'; request: ActRequest; replyTo: ReplyTo }
  | { type: 'RELEASE'; episodeId: string };

/** The agent actor's input: the policy it runs. */
export interface AgentActorInput {
  readonly policy: Policy;
  /** Largest batch handed to the policy at once. */
  readonly maxBatch?: number;
  /** Receives what `policy.release` returns (the token trajectory of a finished episode). */
  readonly onRelease?: (episodeId: string, released: ReturnType<Policy['release']>) => void;
}

interface Pending {
  readonly request: ActRequest;
  readonly replyTo: ReplyTo;
}

export const agentLogic = fromCallback<AgentActorEvent, AgentActorInput>(({ input, receive }) => {
  const { policy } = input;
  const maxBatch = input.maxBatch ?? 256;
  let queue: Pending[] = [];
  let busy = false;
  let scheduled: NodeJS.Immediate | undefined;
  let stopped = false;

  // A policy that throws instead of rejecting still answers through the promise.
  const decide = (batch: readonly Pending[]): Promise<readonly Decision[]> => {
    try {
      return policy.act(batch.map((item) => item.request));
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const decideAlone = (item: Pending) => {
    decide([item])
      .then(
        (decisions) => reply([item], decisions),
        (error: unknown) => answer(item.replyTo, { type: 'AGENT.FAILED', reason: 'agent_error', error: errorMessage(error) }),
      );
  };

  const reply = (batch: readonly Pending[], decisions: readonly Decision[]) => {
    batch.forEach((item, i) => {
      const decision = decisions[i];
      if (!decision) {
        answer(item.replyTo, { type: 'AGENT.FAILED', reason: 'agent_error', error: 'policy returned too few decisions' });
        return;
      }
      if (decision.exhausted !== undefined) answer(item.replyTo, { type: 'AGENT.EXHAUSTED', reason: decision.exhausted });
      else answer(item.replyTo, { type: 'AGENT.DECIDED', ...decision });
    });
  };

  const flush = () => {
    scheduled = undefined;
    if (busy || queue.length === 0 || stopped) return;
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
    busy = true;
    decide(batch)
      .then(
        (decisions) => reply(batch, decisions),
        (error: unknown) => {
          for (const item of batch) answer(item.replyTo, { type: 'AGENT.FAILED', reason: 'agent_error', error: errorMessage(error) });
        },
      )
      .finally(() => {
        busy = false;
        schedule();
      });
  };
  // setImmediate, not a microtask: env replies that land in the same I/O phase join one batch.
  const schedule = () => {
    if (scheduled === undefined && queue.length > 0 && !busy) scheduled = setImmediate(flush);
  };

  receive((event) => {
    if (event.type === 'ACT') {
      if (policy.concurrent) {
        decideAlone({ request: event.request, replyTo: event.replyTo });
        return;
      }
      queue.push({ request: event.request, replyTo: event.replyTo });
      schedule();
    } else {
      const released = policy.release(event.episodeId);
      input.onRelease?.(event.episodeId, released);
    }
  });
  return () => {
    stopped = true;
    if (scheduled !== undefined) clearImmediate(scheduled);
  };
});

/** A running agent actor. */
export type AgentActorRef = ActorRefFrom<typeof agentLogic>;

/**
 * The agent actor, started: send `{ type: 'ACT', request, replyTo }` and the decision comes back to
 * `replyTo` as `AGENT.DECIDED` (or `AGENT.FAILED`); requests that arrive together are decided in
 * one batched call of the policy. Send `{ type: 'RELEASE', episodeId }` when an episode ends.
 */
export function createAgentActor(input: AgentActorInput): AgentActorRef {
  return createActor(agentLogic, { input }).start();
}
