import { Option, type Command } from 'commander';
import { Subject } from 'rxjs';
import type { RunEvent } from '../../streams/events.ts';
import { collectDemos } from '../../actors/demos/collect-demos.ts';
import { writeDemos } from '../../actors/demos/write-demos.ts';
import type { Split } from '../../envs/contract.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend.ts';
import { AGENT_FORMS, resolveAgent } from '../agent-spec.ts';
import { closeRemote } from '../close-remote.ts';
import { addLlmOptions, llmOptionsFrom, type LlmFlags } from '../llm-options.ts';
import { nonNegativeInt, percent, positiveInt, printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { addRemoteOptions, resolveCommandEnv, type RemoteFlags } from '../remote-options.ts';

interface CollectOptions extends LlmFlags, RemoteFlags {
  env: string;
  agent: string;
  split: Split;
  episodes?: number;
  samples: number;
  seed: number;
  horizon?: number;
  concurrency: number;
  onlySuccess?: boolean;
  out: string;
  token?: string;
  envTimeout: number;
  backend: BackendPreference;
  json?: boolean;
}

export function registerCollect(program: Command): void {
  const command = program
    .command('collect')
    .description('run an agent and write its episodes as demonstrations (JSON lines) for `sft`: each turn\'s observation, listed actions, action and reward')
    .requiredOption('--env <id>', 'environment id (see `actorgym envs`)')
    .option('--agent <agent>', `who acts: ${AGENT_FORMS.replaceAll(', ', ' | ')}`, 'oracle')
    .addOption(new Option('--split <split>', 'task split').choices(['train', 'test']).default('train'))
    .option('--episodes <n>', 'tasks from the start of the split (default: all of them)', positiveInt('--episodes'))
    .option('--samples <k>', 'episodes per task', positiveInt('--samples'), 1)
    .option('--seed <n>', 'run seed: the same seed writes the same demos', nonNegativeInt('--seed'), 0)
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 16)
    .option('--only-success', 'write successful episodes only')
    .requiredOption('--out <file>', 'demos file to write (JSON lines; written whole or not at all)')
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--env-timeout <ms>', 'deadline of each env call', positiveInt('--env-timeout'), 30_000)
    .addOption(new Option('--backend <backend>', 'tfjs backend of a checkpoint agent').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--json', 'print one JSON object with the counts on stdout');
  addRemoteOptions(command);
  addLlmOptions(command).action(async (options: CollectOptions) => {
    const token = options.token ?? process.env.ACTORGYM_TOKEN;
    const env = await resolveCommandEnv(options.env, options, token, options.envTimeout);
    const agent = await resolveAgent(options.agent, {
      env: options.env, llm: llmOptionsFrom(options), backend: options.backend,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    });
    const total = (options.episodes ?? env.tasks(options.split).length) * options.samples;
    const events = new Subject<RunEvent>();
    const progress = showRunProgress(events, total, 1, !options.json);
    const started = performance.now();
    try {
      const result = await collectDemos({
        env, agent: agent.spec, agentName: options.agent, split: options.split, samples: options.samples, seed: options.seed,
        concurrency: options.concurrency, onlySuccess: options.onlySuccess === true, envTimeoutMs: options.envTimeout,
        ...(options.episodes !== undefined ? { episodes: options.episodes } : {}),
        ...(options.horizon !== undefined ? { horizon: options.horizon } : {}),
        ...(options.maxLostRetries !== undefined ? { maxLostRetries: options.maxLostRetries } : {}),
        ...(agent.agentTimeoutMs !== undefined ? { agentTimeoutMs: agent.agentTimeoutMs } : {}),
        events,
      });
      const fatal = agent.fatalError?.();
      if (fatal) throw fatal;
      writeDemos(options.out, result.demos);
      const counts = {
        out: options.out, env: options.env, agent: options.agent, split: options.split, episodes: result.episodes, successRate: result.summary.successRate,
        written: result.demos.length, filtered: result.filtered, aborted: result.aborted, seconds: Math.round((performance.now() - started) / 100) / 10,
      };
      if (options.json) printJson(counts);
      else {
        console.log(`${counts.written} demos written to ${options.out} (${result.episodes} episodes, success ${percent(result.summary.successRate)}` +
          `${options.onlySuccess ? `, ${result.filtered} unsuccessful left out` : ''}${result.aborted > 0 ? `, ${result.aborted} aborted and not written` : ''})`);
      }
    } finally {
      progress?.unsubscribe();
      await agent.dispose();
      await closeRemote(env);
    }
  });
}
