import type { EnvDefinition } from './contract.ts';
import { getEnv } from './registry.ts';
import { remoteEnvDefinition } from './remote/ws-client.ts';

export interface EnvLocation {
  readonly env: string;
  /** `ws://host:port` of an `actorgym serve` process; the env then runs there. */
  readonly remote?: string | undefined;
  readonly token?: string | undefined;
}

/** The env a command runs on: the local registry's, or the same env on a remote env server. */
export async function resolveEnvDefinition(location: EnvLocation): Promise<EnvDefinition> {
  if (!location.remote) return getEnv(location.env);
  return remoteEnvDefinition(location.remote, location.env, location.token ? { token: location.token } : {});
}
