import type { EnvDefinition } from '../../envs/contract.ts';
import type { SymmetryGroups } from '../../envs/symmetries.ts';

/** The env's symmetry groups, for `relabel`; an env that declares none is a configuration error. */
export function symmetriesOf(env: EnvDefinition): SymmetryGroups {
  const groups = env.spec.symmetries;
  if (groups === undefined || groups.length === 0) throw new Error(`relabel needs an env that declares symmetries (EnvSpec.symmetries); "${env.spec.id}" declares none`);
  return groups;
}
