/**
 * Binds the pure episode machine to an env actor and the agent actor. The machine asks for each
 * call through a named action; the answer comes back as an event to the episode itself.
 */
import { createActor, type ActorRefFrom } from 'xstate';
import { episodeMachine, type EpisodeInput } from '../machines/episode.machine.ts';
import type { AgentActorRef } from './agent.actor.ts';
import type { RunClock } from './clock.ts';
import type { EnvActorRef } from './env.actor.ts';

export interface EpisodeEffects {
  /** The env slot an episode runs on (the run actor assigns one per running episode). */
  readonly envOf: (episodeId: string) => EnvActorRef;
  readonly agent: AgentActorRef;
}

/** Provided once per run; env slots are looked up by episode id, since context holds no refs. */
export function episodeLogic({ envOf, agent }: EpisodeEffects) {
  return episodeMachine.provide({
    actions: {
      callReset: ({ context, self }) => {
        envOf(context.episodeId).send({ type: 'RESET', options: { taskId: context.taskId, seed: context.seed }, replyTo: self });
      },
      callAgent: ({ context, self }) => {
        agent.send({
          type: 'ACT',
          request: {
            episodeId: context.episodeId,
            turn: context.turn,
            observation: context.observation,
            ...(context.availableActions ? { availableActions: context.availableActions } : {}),
            seed: context.seed,
          },
          replyTo: self,
        });
      },
      callStep: ({ context, self }) => {
        envOf(context.episodeId).send({ type: 'STEP', action: context.pendingDecision?.action ?? '', replyTo: self });
      },
    },
  });
}

export type EpisodeLogic = ReturnType<typeof episodeLogic>;
export type EpisodeActorRef = ActorRefFrom<EpisodeLogic>;

export function createEpisodeActor(logic: EpisodeLogic, input: EpisodeInput, clock: RunClock): EpisodeActorRef {
  return createActor(logic, { input, clock });
}
