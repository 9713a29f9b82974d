/** What `actorgym serve-policy` does (its options are in serve-policy.ts). */
import { startPolicyServer } from '../../servers/policy-server/policy-server.ts';
import { loadCheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import type { ServePolicyOptions } from './serve-policy.ts';

export async function runServePolicy(options: ServePolicyOptions): Promise<void> {
  const agent = await loadCheckpointAgent(options.checkpoint, {
    backend: options.backend,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  if (!isLoopbackHost(options.host) && !token) {
    process.stderr.write(`actorgym serve-policy: warning: listening on ${options.host} without --token; anyone who can reach it can use the model\n`);
  }
  const server = await startPolicyServer({
    port: options.port,
    host: options.host,
    agent,
    maxSessions: options.maxSessions,
    allowOrigins: options.allowOrigin,
    drainMs: options.drainTimeout,
    ...(token ? { token } : {}),
  });
  process.stderr.write(`backend: ${agent.backend} · checkpoint ${agent.dir} (step ${agent.step}) · temperature ${agent.policy.inner.options.temperature}\n`);
  // The ready line is what scripts and tests wait for; keep its shape.
  process.stdout.write(`actorgym serve-policy: ${server.modelId} on ${server.url}\n`);
  const shutdown = async () => {
    await server.close();
    agent.dispose();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}
