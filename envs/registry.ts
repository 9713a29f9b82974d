import { EnvError, type EnvDefinition } from './contract.ts';

const definitions = new Map<string, EnvDefinition>();

/** Adds an env family to the registry; ids are unique. */
export function registerEnv(definition: EnvDefinition): void {
  if (definitions.has(definition.spec.id)) {
    throw new Error(`env "${definition.spec.id}" is already registered`);
  }
  definitions.set(definition.spec.id, definition);
}

/** Every registered env family, in registration order (`actorgym envs` lists them). */
export function listEnvs(): readonly EnvDefinition[] {
  return [...definitions.values()];
}

/** Looks an env up by id; an unknown id is an `ENV_UNKNOWN` error naming the known ones. */
export function getEnv(id: string): EnvDefinition {
  const definition = definitions.get(id);
  if (!definition) {
    const known = [...definitions.keys()].join(', ') || '(none)';
    throw new EnvError('ENV_UNKNOWN', `unknown env "${id}"; known envs: ${known}`);
  }
  return definition;
}

/**
 * A new instance of the env registered as `id` (`getEnv(id).make()`); an unknown id is an
 * `ENV_UNKNOWN` error.
 */
export function makeEnv(id: string) {
  return getEnv(id).make();
}
