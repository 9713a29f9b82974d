/**
 * Where a command's env runs: the local registry, or remote env servers (`--remote`). It lives in
 * transport/ because the remote case opens connections, which envs/ never does.
 */
import type { EnvDefinition } from '../envs/contract.ts';
import { EnvError } from '../envs/contract.ts';
// envs/index.ts, not the bare registry: it registers the built-in envs a name may refer to.
import { getEnv, listEnvs } from '../envs/index.ts';
import { agentGymPoolDefinition } from './remote/agentgym-pool-definition.ts';
import { AGENTGYM_SCHEME, parseAgentGymRemote } from './remote/agentgym-remote-url.ts';
import { poolEnvDefinition } from './remote/pool-definition.ts';
import type { PoolEvent } from './remote/ws-pool.ts';

/** Where a run's env runs: a registry id, played in-process, or on the env servers of `remote`. */
export interface EnvLocation {
  readonly env: string;
  /**
   * `ws://host:port` of an `actorgym serve` process, or several separated by commas
   * (`ws://a:8100,ws://b:8100`): the env then runs there, on a reconnecting pool of servers
   * (transport/remote/ws-pool.ts). `agentgym+http://host:port` (several: a pool too) are
   * AgentGym HTTP env servers (transport/remote/agentgym-pool-definition.ts).
   */
  readonly remote?: string | undefined;
  readonly token?: string | undefined;
  /**
   * Deadline of every call on the connections (ms), start-up calls (spec, tasks) included; the
   * commands pass `--env-timeout`. Default 30 000.
   */
  readonly envTimeoutMs?: number | undefined;
  /** How long a new instance waits for a live server when none is connected (ms). Default 5 000. */
  readonly serverWaitMs?: number | undefined;
  /** Told when a server of the pool connects, is lost, or cannot be reached. */
  readonly onPoolEvent?: ((event: PoolEvent) => void) | undefined;
}

/** The URLs of a `--remote` value: comma-separated `ws://`/`wss://` URLs, or `agentgym+http://` ones. */
export function parseRemoteUrls(remote: string): string[] {
  // Split only at commas before a scheme, so an agentgym+http:// query can list data_idx (?test=0-9,20).
  const urls = remote
    .split(/,(?=\s*[a-z][a-z0-9+.-]*:\/\/)/i)
    .map((url) => url.trim().replace(/,+$/, '').trim())
    .filter((url) => url.length > 0);
  if (urls.length === 0) throw new EnvError('PROTOCOL_ERROR', `--remote needs at least one ws:// or agentgym+http:// URL, got "${remote}"`);
  const agentgym = urls.filter((url) => url.startsWith(AGENTGYM_SCHEME)).length;
  if (agentgym > 0 && agentgym < urls.length) throw new EnvError('PROTOCOL_ERROR', `--remote mixes agentgym+http:// and ws:// servers: "${remote}"; one pool speaks one protocol`);
  for (const url of urls) {
    if (agentgym === 0 && !/^wss?:\/\/[^/\s]+/.test(url)) {
      throw new EnvError('PROTOCOL_ERROR', `--remote takes ws:// or wss:// URLs (actorgym serve) or agentgym+http:// URLs (AgentGym env servers) separated by commas, got "${url}"`);
    }
  }
  return urls;
}

/**
 * The env a command runs on: the local registry's, or the same env on remote env servers. A
 * remote env takes `categoryOf` and its LLM `prompt` from the local registry's env of the same id,
 * when there is one: our servers serve our envs, and the wire carries neither.
 */
export async function resolveEnvDefinition(location: EnvLocation): Promise<EnvDefinition> {
  if (!location.remote) return getEnv(location.env);
  const urls = parseRemoteUrls(location.remote);
  const options = {
    ...(location.envTimeoutMs !== undefined ? { callTimeoutMs: location.envTimeoutMs } : {}),
    ...(location.serverWaitMs !== undefined ? { serverWaitMs: location.serverWaitMs } : {}),
    ...(location.onPoolEvent ? { onEvent: location.onPoolEvent } : {}),
  };
  if (urls[0]?.startsWith(AGENTGYM_SCHEME)) {
    // An actorgym server's token goes as `Authorization: Bearer` (AgentGym's servers ignore it), or in the URL (/token/T).
    const local = listEnvs().find((definition) => definition.spec.id === location.env);
    return agentGymPoolDefinition(parseAgentGymRemote(urls), location.env, local, { ...(location.token ? { token: location.token } : {}), ...options });
  }
  const remote = await poolEnvDefinition(urls, location.env, { ...(location.token ? { token: location.token } : {}), ...options });
  const local = listEnvs().find((definition) => definition.spec.id === remote.spec.id);
  if (local === undefined) return remote;
  return {
    ...remote,
    ...(local.categoryOf ? { categoryOf: local.categoryOf.bind(local) } : {}),
    ...(local.prompt ? { prompt: local.prompt.bind(local) } : {}),
  };
}
