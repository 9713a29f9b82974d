import { Option, type Command } from 'commander';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { loadCheckpointAgent } from '../../actors/training/checkpoint-agent.ts';
import { resolveEnvDefinition } from '../../envs/index.ts';
import type { Split } from '../../envs/contract.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend.ts';
import { closeRemote } from '../close-remote.ts';
import { nonNegativeInt, positiveInt, printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { printRolloutSummary } from '../summary.ts';

interface EvalOptions {
  checkpoint: string;
  env?: string;
  split: Split;
  episodes?: number;
  horizon?: number;
  temperature?: number;
  seed: number;
  concurrency: number;
  backend: BackendPreference;
  remote?: string;
  token?: string;
  json?: boolean;
}

export function registerEval(program: Command): void {
  program
    .command('eval')
    .description('evaluate a checkpoint on a split; prints what `rollout` prints')
    .requiredOption('--checkpoint <dir>', 'a run directory or its checkpoint/ directory')
    .option('--env <id>', 'environment id (default: the one the checkpoint trained on)')
    .addOption(new Option('--split <split>', 'task split').choices(['train', 'test']).default('test'))
    .option('--episodes <n>', 'episodes to run (default: the whole split)', positiveInt('--episodes'))
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--temperature <t>', 'sampling temperature, 0 = greedy (default: the run\'s evaluation temperature)', (t) => {
      const value = Number(t);
      if (!(Number.isFinite(value) && value >= 0)) throw new Error(`--temperature must be a number ≥ 0, got "${t}"`);
      return value;
    })
    .option('--seed <n>', 'run seed', nonNegativeInt('--seed'), 0)
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 32)
    .addOption(new Option('--backend <backend>', 'tfjs backend').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--remote <url>', 'use the env on an `actorgym serve` server')
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--json', 'print one JSON object with the summary on stdout')
    .action(async (options: EvalOptions) => {
      const agent = await loadCheckpointAgent(options.checkpoint, {
        backend: options.backend,
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      });
      process.stderr.write(`backend: ${agent.backend} · checkpoint ${agent.dir} (step ${agent.step})\n`);
      const token = options.token ?? process.env.ACTORGYM_TOKEN;
      const env = await resolveEnvDefinition({ env: options.env ?? agent.config.env, remote: options.remote, token });
      const system = createRolloutSystem({
        env,
        agent: agent.policy,
        split: options.split,
        ...(options.episodes !== undefined ? { episodes: options.episodes } : {}),
        ...(options.horizon !== undefined ? { schedule: `fixed:${options.horizon}` } : {}),
        concurrency: options.concurrency,
        seed: options.seed,
      });
      const progress = showRunProgress(system.events, options.episodes ?? env.tasks(options.split).length, 1, !options.json);
      const summary = await system.run();
      progress?.unsubscribe();
      agent.dispose();
      if (options.json) printJson(summary);
      else printRolloutSummary(summary);
      await closeRemote(env);
    });
}
