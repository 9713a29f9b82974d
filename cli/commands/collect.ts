/**
 * `actorgym collect`: runs an agent on a split and writes its episodes as demonstrations, in our
 * JSON lines or AgentGym's AgentTraj (actors/demos), for `actorgym sft` or a trainer elsewhere.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { Subject } from 'rxjs';
import { collectDemos } from '../../actors/demos/collect-demos.ts';
import type { DemoFileFormat } from '../../actors/demos/demo-records.ts';
import { DEMO_FORMATS, writeDemos } from '../../actors/demos/write-demos.ts';
import type { Split } from '../../envs/contract.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend.ts';
import type { RunEvent } from '../../streams/events.ts';
import { AGENT_FORMS, resolveAgent } from '../agent-spec.ts';
import { closeRemote } from '../close-remote.ts';
import { addLlmOptions, llmOptionsFrom, type LlmFlags } from '../llm-options.ts';
import { nonNegativeInt, percent, positiveInt, printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { addRemoteOptions, resolveCommandEnv, type RemoteFlags } from '../remote-options.ts';
import { printLlmUsage } from '../summary.ts';

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
  format: DemoFileFormat;
  out: string;
  token?: string;
  maxRetries: number;
  envTimeout: number;
  backend: BackendPreference;
  json?: boolean;
}

const EXAMPLES = `
Each demo is one episode: every turn's observation, the env's action list, the action and its
reward, with the outcome. Episodes aborted by infrastructure (after --max-retries) are not written.
The same command and --seed write the same file, in task then sample order.

Formats:
  actorgym   JSON lines, one demo per line (what \`actorgym sft\` reads best)
  agenttraj  AgentGym's SFT items {item_id, conversations}: a JSON list, or JSON lines when
             --out ends in .jsonl; item_id is <env>_<data_idx> as \`actorgym serve --agentgym-http\` numbers tasks

Examples:
  actorgym collect --env babyai --agent oracle --out babyai-oracle.jsonl
  actorgym collect --env textcraft --agent checkpoint:runs/tc --samples 4 --only-success --out tc.jsonl
  actorgym collect --env sciworld --agent oracle --episodes 100 --format agenttraj --out sciworld.json`;

export function registerCollect(program: Command): void {
  const command = program
    .command('collect')
    .description('run an agent and write its episodes as demonstrations for `sft` (our JSON lines or AgentGym\'s AgentTraj)')
    .requiredOption('--env <id>', 'environment id (see `actorgym envs`)')
    .option('--agent <agent>', `who acts: ${AGENT_FORMS.replaceAll(', ', ' | ')}`, 'oracle')
    .addOption(new Option('--split <split>', 'task split').choices(['train', 'test']).default('train'))
    .option('--episodes <n>', 'tasks from the start of the split (default: all of them)', positiveInt('--episodes'))
    .option('--samples <k>', 'episodes per task', positiveInt('--samples'), 1)
    .option('--seed <n>', 'run seed: the same seed writes the same demos', nonNegativeInt('--seed'), 0)
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 16)
    .option('--only-success', 'write successful episodes only')
    .addOption(new Option('--format <format>', 'file format').choices(DEMO_FORMATS as string[]).default('actorgym'))
    .requiredOption('--out <file>', 'file to write (written whole at the end, or not at all)')
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--max-retries <n>', 'retries of an episode aborted by infrastructure', nonNegativeInt('--max-retries'), 1)
    .option('--env-timeout <ms>', 'deadline of each env call', positiveInt('--env-timeout'), 30_000)
    .addOption(new Option('--backend <backend>', 'tfjs backend of a checkpoint agent').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--json', 'print one JSON object with the counts on stdout')
    .addHelpText('after', EXAMPLES);
  addRemoteOptions(command);
  addLlmOptions(command).action(async (options: CollectOptions) => {
    const dir = path.dirname(path.resolve(options.out));
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--out ${options.out}: directory ${dir} does not exist`);
    const token = options.token ?? process.env.ACTORGYM_TOKEN;
    const env = await resolveCommandEnv(options.env, options, token, options.envTimeout);
    const agent = await resolveAgent(options.agent, {
      env: options.env, llm: llmOptionsFrom(options), backend: options.backend,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    });
    const total = (options.episodes ?? env.tasks(options.split).length) * options.samples;
    const events = new Subject<RunEvent>();
    const progress = showRunProgress(events, total, options.maxRetries, !options.json);
    const stopper = new AbortController();
    agent.watchFatal?.((error) => stopper.abort(error));
    const interrupt = () => stopper.abort(new Error('interrupted (SIGINT); nothing written'));
    process.once('SIGINT', interrupt);
    const started = performance.now();
    try {
      const result = await collectDemos({
        env, agent: agent.spec, agentName: options.agent, split: options.split, samples: options.samples, seed: options.seed,
        concurrency: options.concurrency, onlySuccess: options.onlySuccess === true, envTimeoutMs: options.envTimeout,
        maxRetries: options.maxRetries, maxLostRetries: options.maxLostRetries, signal: stopper.signal, events,
        ...(options.episodes !== undefined ? { episodes: options.episodes } : {}),
        ...(options.horizon !== undefined ? { horizon: options.horizon } : {}),
        ...(agent.agentTimeoutMs !== undefined ? { agentTimeoutMs: agent.agentTimeoutMs } : {}),
      }).catch((error: unknown) => {
        throw agent.fatalError?.() ?? error;
      });
      const fatal = agent.fatalError?.();
      if (fatal) throw fatal;
      events.complete();
      writeDemos(options.out, result.demos, options.format, { env });
      const counts = {
        out: options.out, format: options.format, env: options.env, agent: options.agent, split: options.split,
        episodes: result.episodes, successes: result.successes, successRate: result.summary.successRate,
        written: result.demos.length, filtered: result.filtered, aborted: result.aborted,
        seconds: Math.round((performance.now() - started) / 100) / 10,
      };
      const llm = agent.usage?.();
      if (options.json) printJson({ ...counts, ...(llm ? { llm } : {}) });
      else {
        console.log(
          `${counts.written} demos written to ${options.out} (${options.format}): ${result.episodes} episodes, ${result.successes} successes (${percent(result.summary.successRate)})` +
            `${options.onlySuccess ? `, ${result.filtered} unsuccessful left out` : ''}, ${result.aborted} aborted and not written, ${counts.seconds} s`,
        );
        if (llm) printLlmUsage(llm);
      }
      if (result.aborted > 0) process.stderr.write(`warning: ${result.aborted} episode(s) aborted by infrastructure failures and not written\n`);
    } finally {
      process.off('SIGINT', interrupt);
      events.complete();
      progress?.unsubscribe();
      await agent.dispose();
      await closeRemote(env);
    }
  });
}
