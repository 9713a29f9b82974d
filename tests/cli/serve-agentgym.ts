/** `actorgym serve ENV --agentgym-http 0` for the `--remote agentgym+http://` CLI tests; the caller stops what it pushed on `servers`. */
import { startChildServer, type ChildServer } from '../../bench/stats.ts';

/** The server (`extra`: more `serve` flags, e.g. `--token T`), its AgentGym HTTP URL, and that URL as an `agentgym+http://` remote. */
export async function serveAgentGym(env: string, servers: ChildServer[], extra: readonly string[] = []): Promise<{ server: ChildServer; remote: string; http: string }> {
  const server = await startChildServer([env, '--port', '0', '--agentgym-http', '0', ...extra], 2);
  servers.push(server);
  const http = server.urls.find((url) => url.startsWith('http://')) as string;
  return { server, http, remote: `agentgym+http://${http.slice('http://'.length)}` };
}
