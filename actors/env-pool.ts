/**
 * A fixed set of env slots, one per concurrently running episode. An episode that was aborted
 * gives back a slot whose env is suspect, so that env is closed and the slot gets a fresh one:
 * the retry runs "on another env slot" (DESIGN: the episode).
 */
import type { Env, EnvDefinition, Oracle } from '../envs/contract.ts';
import { createEnvActor, type EnvActorRef } from './env.actor.ts';

export interface EnvSlot {
  readonly env: Env;
  readonly ref: EnvActorRef;
  readonly oracle: Oracle | undefined;
}

export class EnvPool {
  private readonly free: EnvSlot[] = [];
  private readonly all = new Set<EnvSlot>();

  constructor(private readonly definition: EnvDefinition) {}

  acquire(): EnvSlot {
    return this.free.pop() ?? this.open();
  }

  release(slot: EnvSlot, suspect: boolean): void {
    if (!suspect) {
      this.free.push(slot);
      return;
    }
    this.all.delete(slot);
    slot.ref.send({ type: 'CLOSE' });
    slot.ref.stop();
  }

  closeAll(): void {
    for (const slot of this.all) {
      slot.ref.send({ type: 'CLOSE' });
      slot.ref.stop();
    }
    this.all.clear();
    this.free.length = 0;
  }

  private open(): EnvSlot {
    const env = this.definition.make();
    const slot = { env, ref: createEnvActor({ env }), oracle: this.definition.oracle?.(env) };
    this.all.add(slot);
    return slot;
  }
}
