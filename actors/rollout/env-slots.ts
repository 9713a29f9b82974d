/**
 * The env slots of running episodes, by episode id: the pool (actors/env-pool.ts) hands one out
 * when an episode starts and takes it back when it ends. Episode context holds no refs, so the
 * episode's env calls and the oracle find their env here.
 */
import type { EnvDefinition, Oracle } from '../../envs/contract.ts';
import type { EnvActorRef } from '../env.actor.ts';
import { EnvPool, type EnvSlot } from '../env-pool.ts';

export class EnvSlots {
  readonly #pool: EnvPool;
  readonly #byEpisode = new Map<string, EnvSlot>();

  constructor(definition: EnvDefinition) {
    this.#pool = new EnvPool(definition);
  }

  acquire(episodeId: string): void {
    this.#byEpisode.set(episodeId, this.#pool.acquire());
  }

  /** Gives the slot back (a suspect one, after an abort, is closed) and returns it. */
  release(episodeId: string, suspect: boolean): EnvSlot | undefined {
    const slot = this.#byEpisode.get(episodeId);
    this.#byEpisode.delete(episodeId);
    if (slot) this.#pool.release(slot, suspect);
    return slot;
  }

  refOf(episodeId: string): EnvActorRef {
    return (this.#byEpisode.get(episodeId) as EnvSlot).ref;
  }

  oracleOf(episodeId: string): Oracle | undefined {
    return this.#byEpisode.get(episodeId)?.oracle;
  }

  closeAll(): void {
    this.#pool.closeAll();
  }
}
