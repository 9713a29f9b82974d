import type { Command } from 'commander';
import { startAgentGymHttpServer } from '../../actors/agentgym-http-server.ts';
import { startEnvServer } from '../../actors/env-server.ts';
import { EnvError, getEnv } from '../../envs/index.ts';
import { port, positiveInt } from '../output.ts';

interface ServeOptions {
  port: number;
  host: string;
  token?: string;
  agentgymHttp?: number;
  maxInstances: number;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve an environment over WebSocket (and optionally AgentGym HTTP) for remote rollouts and training')
    .argument('<env>', 'environment id (see `actorgym envs`)')
    .option('--port <port>', 'WebSocket port (0 picks a free one)', port, 8100)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <token>', 'require this bearer token (or ACTORGYM_TOKEN)')
    .option('--agentgym-http <port>', "also speak AgentGym's HTTP protocol on this port", port)
    .option('--max-instances <n>', 'env instances per connection', positiveInt('--max-instances'), 1024)
    .action(async (envId: string, options: ServeOptions) => {
      const definition = getEnv(envId);
      const token = options.token ?? process.env.ACTORGYM_TOKEN;
      const server = await startEnvServer({
        port: options.port,
        host: options.host,
        resolveEnv: (id) => {
          if (id === definition.spec.id) return definition;
          throw new EnvError('ENV_UNKNOWN', `this server serves "${definition.spec.id}", not "${id}"`);
        },
        maxInstancesPerConnection: options.maxInstances,
        ...(token ? { token } : {}),
      });
      // The ready line is what scripts and tests wait for; keep its shape.
      process.stdout.write(`actorgym serve: ${definition.spec.id} listening on ${server.url}\n`);
      const http =
        options.agentgymHttp !== undefined
          ? await startAgentGymHttpServer({ port: options.agentgymHttp, host: options.host, definition })
          : undefined;
      if (http) process.stdout.write(`actorgym serve: AgentGym HTTP protocol on ${http.url}\n`);
      const shutdown = async () => {
        await Promise.all([server.close(), http?.close()]);
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
    });
}
