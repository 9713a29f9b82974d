/**
 * The env actor: one env instance (in-process or remote) behind an actor that answers `RESET`
 * and `STEP` with events to whoever asked. A failed call becomes `ENV.FAILED` with an abort
 * reason, never an exception across the actor boundary.
 */
import { createActor, fromCallback, type ActorRefFrom } from 'xstate';
import type { Env, ResetOptions } from '../envs/contract.ts';
import type { AgentDecision, EpisodeEvent } from '../machines/episode.machine.ts';
import { errorMessage } from '../envs/error-message.ts';
import { envAbortReason } from './abort-reason.ts';

export interface ReplyTo {
  send(event: EpisodeEvent): void;
  /** An actor ref has one: answers to an episode that has already ended are dropped (`answer`). */
  getSnapshot?(): { readonly status: string };
}

/**
 * Sends `event` unless the episode asking has already ended (cancelled, timed out): a late answer
 * has no one to go to, and xstate would warn that it was sent to a stopped actor.
 */
export function answer(replyTo: ReplyTo, event: EpisodeEvent): void {
  if (replyTo.getSnapshot !== undefined && replyTo.getSnapshot().status !== 'active') return;
  replyTo.send(event);
}

/** Events the env actor takes: reset and step (each answered to its sender), and close. */
export type EnvActorEvent =
  | { type: 'RESET'; options: ResetOptions; replyTo: ReplyTo }
  /** Steps with `decision.action`; the reply carries `decision` back to the episode. */
  | { type: 'STEP'; decision: AgentDecision; replyTo: ReplyTo }
  | { type: 'CLOSE' };

/** The env actor's input: the env instance it drives. */
export interface EnvActorInput {
  readonly env: Env;
}

const fail = (replyTo: ReplyTo) => (error: unknown) =>
  answer(replyTo, { type: 'ENV.FAILED', reason: envAbortReason(error), error: errorMessage(error) });

export const envLogic = fromCallback<EnvActorEvent, EnvActorInput>(({ input, receive }) => {
  const { env } = input;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    env.close().catch(() => {
      // Closing a lost env fails by nature; the episode already recorded the loss.
    });
  };
  receive((event) => {
    switch (event.type) {
      case 'RESET':
        env.reset(event.options).then(
          (result) => answer(event.replyTo, { type: 'ENV.RESET', observation: result.observation, info: result.info }),
          fail(event.replyTo),
        );
        return;
      case 'STEP':
        env.step(event.decision.action).then(
          (result) =>
            answer(event.replyTo, {
              type: 'ENV.STEPPED',
              decision: event.decision,
              observation: result.observation,
              reward: result.reward,
              terminated: result.terminated,
              truncated: result.truncated,
              info: result.info,
            }),
          fail(event.replyTo),
        );
        return;
      case 'CLOSE':
        close();
    }
  });
  return close;
});

/** A running env actor. */
export type EnvActorRef = ActorRefFrom<typeof envLogic>;

/**
 * The env actor, started, over one env instance: send `RESET` and `STEP` with a `replyTo`, and the
 * answer comes back as `ENV.RESET` / `ENV.STEPPED`, or `ENV.FAILED` with an abort reason; `CLOSE`
 * closes the env.
 */
export function createEnvActor(input: EnvActorInput): EnvActorRef {
  return createActor(envLogic, { input }).start();
}
