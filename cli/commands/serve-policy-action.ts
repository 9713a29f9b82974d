/** What `actorgym serve-policy` does (its options are in serve-policy.ts; a Hugging Face model's loading in serve-policy-hf.ts). */
import { startPolicyServer, type PolicyListenOptions, type PolicyServer } from '../../servers/policy-server/policy-server.ts';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { loadCheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import { connectionLimitsOf } from '../connection-budget-options.ts';
import type { ServePolicyOptions } from './serve-policy.ts';
import { servedSpecOf } from './serve-policy-spec.ts';

export async function runServePolicy(options: ServePolicyOptions): Promise<void> {
  const spec = servedSpecOf(options);
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  if (!isLoopbackHost(options.host) && !token) {
    process.stderr.write(`actorgym serve-policy: warning: listening on ${options.host} without --token; anyone who can reach it can use the model\n`);
  }
  const listen: PolicyListenOptions = {
    port: options.port,
    host: options.host,
    allowOrigins: options.allowOrigin,
    drainMs: options.drainTimeout,
    ...connectionLimitsOf(options),
    ...(options.logJson === true ? { log: createOpsLog({ server: 'policy', enabled: true, secrets: [token] }) } : {}),
    ...(token ? { token } : {}),
  };
  const { server, dispose } = spec.kind === 'hf'
    ? await (await import('./serve-policy-hf.ts')).serveHf(spec, options, listen)
    : await serveCheckpoint(spec.dir, options, listen);
  // The ready line is what scripts and tests wait for; keep its shape.
  process.stdout.write(`actorgym serve-policy: ${server.modelId} on ${server.url}\n`);
  const shutdown = async () => {
    await server.close();
    dispose();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

async function serveCheckpoint(dir: string, options: ServePolicyOptions, listen: PolicyListenOptions): Promise<{ server: PolicyServer; dispose: () => void }> {
  const agent = await loadCheckpointAgent(dir, {
    backend: options.backend,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
  const server = await startPolicyServer({ ...listen, agent, maxSessions: options.maxSessions });
  process.stderr.write(`backend: ${agent.backend} · checkpoint ${agent.dir} (step ${agent.step}) · temperature ${agent.policy.inner.options.temperature}\n`);
  return { server, dispose: () => agent.dispose() };
}
