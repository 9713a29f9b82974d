/** What `actorgym serve` does (its options are in serve.ts). */
import { startAgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { rateLimitOf } from '../../servers/env-server/token-bucket.ts';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { OutboundBudget } from '../../servers/listener/outbound-budget.ts';
import { EnvError, getEnv } from '../../envs/index.ts';
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import { ENV_SERVER_MAX_BUFFERED_BYTES, ENV_SERVER_PAUSE_BUFFERED_BYTES } from '../../transport/wire/limits.ts';
import { frameBudgetOf } from '../frame-budget-option.ts';
import { serveTokens, type ServeOptions } from './serve.ts';

export async function runServe(envId: string, options: ServeOptions): Promise<void> {
  const definition = getEnv(envId);
  const tokens = serveTokens(options);
  if (tokens.length === 0 && !isLoopbackHost(options.host)) {
    process.stderr.write(
      `actorgym serve: warning: listening on ${options.host} without --token; anyone who can reach this machine can open and step env instances\n`,
    );
  }
  // One --max-buffered-bytes for the whole process: the WebSocket peers and the HTTP port's sockets share it.
  const outbound = new OutboundBudget(ENV_SERVER_MAX_BUFFERED_BYTES, options.maxBufferedBytes, ENV_SERVER_PAUSE_BUFFERED_BYTES);
  const server = await startEnvServer({
    port: options.port,
    host: options.host,
    resolveEnv: (id) => {
      if (id === definition.spec.id) return definition;
      throw new EnvError('ENV_UNKNOWN', `this server serves "${definition.spec.id}", not "${id}"`);
    },
    maxInstances: options.maxInstances,
    maxInstancesPerConnection: options.maxInstancesPerConnection,
    maxInstancesPerClient: options.maxInstancesPerClient,
    maxConnections: options.maxConnections,
    maxPendingConnections: options.maxPendingConnections,
    maxPendingPerAddress: options.maxPendingPerAddress,
    frameBudget: frameBudgetOf(options.frameBudget),
    framesPerTurn: options.framesPerTurn,
    outbound,
    rateLimit: rateLimitOf(options.rateLimit),
    handshakeTimeoutMs: options.handshakeTimeout,
    allowOrigins: options.allowOrigin,
    log: createOpsLog({ server: 'env', enabled: options.logJson === true, secrets: [...tokens, ...options.httpToken] }),
    ...(tokens.length > 0 ? { token: tokens } : {}),
  });
  // The ready line is what scripts and tests wait for; keep its shape.
  process.stdout.write(`actorgym serve: ${definition.spec.id} listening on ${server.url}\n`);
  const http =
    options.agentgymHttp !== undefined
      ? await startAgentGymHttpServer({
          port: options.agentgymHttp,
          host: options.host,
          definition,
          token: [...tokens, ...options.httpToken],
          allowOrigins: options.allowOrigin,
          maxInstances: options.httpMaxInstances,
          maxInstancesPerClient: options.httpMaxInstancesPerClient,
          agentgymCompat: options.agentgymCompat,
          maxConnections: options.maxConnections,
          maxPendingConnections: options.maxPendingConnections,
          maxPendingPerAddress: options.maxPendingPerAddress,
          headersTimeoutMs: options.handshakeTimeout,
          outbound,
          log: createOpsLog({ server: 'agentgym-http', enabled: options.logJson === true, secrets: [...tokens, ...options.httpToken] }),
        })
      : undefined;
  if (http) process.stdout.write(`actorgym serve: AgentGym HTTP protocol on ${http.url}\n`);
  // The first signal drains (running episodes finish, within --drain-timeout); a second one closes at once.
  let stopping = false;
  const shutdown = async () => {
    if (stopping) await Promise.all([server.close(), http?.close()]);
    stopping = true;
    await Promise.all([server.drain(options.drainTimeout), http?.drain(options.drainTimeout)]);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}
