/** What `actorgym rollout-server` does (its options are in rollout-server.ts). */
import { AdaptiveRunCurricula } from '../../actors/rollout-service/run-curricula.ts';
import { startTokenBatch } from '../../actors/rollout-service/token-batch.ts';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { startRolloutServer } from '../../servers/rollout-server/rollout-server.ts';
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import { connectionLimitsOf } from '../connection-budget-options.ts';
import type { RolloutServerCliOptions } from './rollout-server.ts';

export async function runRolloutServer(options: RolloutServerCliOptions): Promise<void> {
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  if (!isLoopbackHost(options.host) && !token) {
    process.stderr.write(`actorgym rollout-server: warning: listening on ${options.host} without --token; anyone who can reach it can run episodes\n`);
  }
  const batchOptions = {
    llmRetries: options.llmRetries, llmTimeoutMs: options.llmTimeout * 1000,
    maxRetries: options.maxRetries, maxLostRetries: options.maxLostRetries, envTimeoutMs: options.envTimeout,
  };
  const server = await startRolloutServer({
    port: options.port, host: options.host,
    ...(token ? { token } : {}),
    ...(options.remote !== undefined ? { remote: options.remote } : {}),
    allowOrigins: options.allowOrigin,
    maxConcurrency: options.maxConcurrency, maxBatches: options.maxBatches,
    envTimeoutMs: options.envTimeout, drainMs: options.drainTimeout,
    ...connectionLimitsOf(options),
    log: createOpsLog({ server: 'rollout', enabled: options.logJson === true, secrets: [token] }),
    runner: (spec, sink) => startTokenBatch(spec, sink, batchOptions),
    curricula: new AdaptiveRunCurricula(),
  });
  // The ready line is what scripts and tests wait for; keep its shape.
  process.stdout.write(`actorgym rollout-server: listening on ${server.url}\n`);
  const shutdown = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}
