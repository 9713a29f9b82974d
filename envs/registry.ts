import { EnvError, type EnvDefinition } from './contract.ts';

const definitions = new Map<string, EnvDefinition>();
/** Families whose envs take an argument (`webarena:DIR`): prefix → maker, and what each id made. */
interface EnvFamily {
  readonly make: (argument: string) => EnvDefinition;
  /** How to name one (`webarena:DIR`) and what it is, for `actorgym envs`. */
  readonly usage: string;
  readonly description: string;
}
const families = new Map<string, EnvFamily>();
const madeByFamily = new Map<string, EnvDefinition>();

/** Adds an env family to the registry; ids are unique. */
export function registerEnv(definition: EnvDefinition): void {
  if (definitions.has(definition.spec.id)) {
    throw new Error(`env "${definition.spec.id}" is already registered`);
  }
  definitions.set(definition.spec.id, definition);
}

/**
 * Adds a family of envs named `prefix:ARGUMENT` (`webarena:path/to/configs`): `getEnv` makes the
 * definition on first use and returns the same one after.
 */
export function registerEnvFamily(prefix: string, make: (argument: string) => EnvDefinition, about?: { usage: string; description: string }): void {
  if (families.has(prefix) || prefix.includes(':')) throw new Error(`env family "${prefix}" is already registered or has a ':'`);
  families.set(prefix, { make, ...(about ?? { usage: `${prefix}:ARG`, description: '' }) });
}

/** Every env family that takes an argument, with how to name one (`actorgym envs` lists them after the envs). */
export function listEnvFamilies(): readonly { readonly prefix: string; readonly usage: string; readonly description: string }[] {
  return [...families].map(([prefix, { usage, description }]) => ({ prefix, usage, description }));
}

/** Every registered env family, in registration order (`actorgym envs` lists them). */
export function listEnvs(): readonly EnvDefinition[] {
  return [...definitions.values()];
}

/** Looks an env up by id; an unknown id is an `ENV_UNKNOWN` error naming the known ones. */
export function getEnv(id: string): EnvDefinition {
  const definition = definitions.get(id) ?? fromFamily(id);
  if (!definition) {
    const known = [...definitions.keys(), ...[...families.keys()].map((prefix) => `${prefix}:ARG`)].join(', ') || '(none)';
    throw new EnvError('ENV_UNKNOWN', `unknown env "${id}"; known envs: ${known}`);
  }
  return definition;
}

function fromFamily(id: string): EnvDefinition | undefined {
  const made = madeByFamily.get(id);
  if (made) return made;
  const colon = id.indexOf(':');
  const family = families.get(colon < 0 ? id : id.slice(0, colon));
  if (!family) return undefined;
  const definition = family.make(colon < 0 ? '' : id.slice(colon + 1));
  madeByFamily.set(id, definition);
  return definition;
}

/**
 * A new instance of the env registered as `id` (`getEnv(id).make()`); an unknown id is an
 * `ENV_UNKNOWN` error.
 */
export function makeEnv(id: string) {
  return getEnv(id).make();
}
