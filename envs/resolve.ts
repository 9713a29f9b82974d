import type { EnvDefinition } from './contract.ts';
import { getEnv, listEnvs } from './registry.ts';
import { remoteEnvDefinition } from './remote/ws-client.ts';

export interface EnvLocation {
  readonly env: string;
  /** `ws://host:port` of an `actorgym serve` process; the env then runs there. */
  readonly remote?: string | undefined;
  readonly token?: string | undefined;
}

/**
 * The env a command runs on: the local registry's, or the same env on a remote env server. A
 * remote env takes `categoryOf` from the local registry's env of the same id, when there is one:
 * our servers serve our envs, and the wire carries no categories.
 */
export async function resolveEnvDefinition(location: EnvLocation): Promise<EnvDefinition> {
  if (!location.remote) return getEnv(location.env);
  const remote = await remoteEnvDefinition(location.remote, location.env, location.token ? { token: location.token } : {});
  const local = listEnvs().find((definition) => definition.spec.id === remote.spec.id);
  if (local?.categoryOf === undefined) return remote;
  const categoryOf = local.categoryOf.bind(local);
  return { ...remote, categoryOf };
}
