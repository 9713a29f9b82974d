/** Closes a pooled env definition's connections; a local definition has nothing to close. */
import type { EnvDefinition } from '../../envs/contract.ts';

export async function closeEnvDefinition(env: EnvDefinition): Promise<void> {
  const close = (env as { close?: () => Promise<void> }).close;
  if (typeof close === 'function') await close.call(env);
}
