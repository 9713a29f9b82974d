import type { Command } from 'commander';
import { listEnvs } from '../../envs/index.ts';
import { printJson, table } from '../output.ts';

export function registerEnvs(program: Command): void {
  program
    .command('envs')
    .description('list registered environments with their splits and default horizons')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => {
      const envs = listEnvs().map(({ spec, oracle }) => ({
        id: spec.id,
        description: spec.description,
        defaultHorizon: spec.defaultHorizon,
        train: spec.splits.train,
        test: spec.splits.test,
        oracle: oracle !== undefined,
      }));
      if (options.json) return printJson(envs);
      const rows = envs.map((env) => [env.id, String(env.train), String(env.test), String(env.defaultHorizon), env.description]);
      console.log(table([['env', 'train', 'test', 'horizon', 'description'], ...rows]));
    });
}
