import path from 'node:path';
import { Option, type Command } from 'commander';
import { EvalError } from '../../actors/eval/eval-error.ts';
import { runEvaluation } from '../../actors/eval/run-eval.ts';
import type { Split } from '../../envs/contract.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend.ts';
import { AGENT_FORMS, resolveAgent } from '../agent-spec.ts';
import { closeRemote } from '../close-remote.ts';
import { addMaxAbortedOption, enforceMaxAborted } from '../max-aborted.ts';
import { addRemoteOptions, resolveCommandEnv, type RemoteFlags } from '../remote-options.ts';
import { printEvalSummary } from '../eval-summary.ts';
import { addLlmOptions, llmOptionsFrom, type LlmFlags } from '../llm-options.ts';
import { nonNegativeInt, positiveInt, printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';

interface EvalOptions extends LlmFlags, RemoteFlags {
  agent?: string;
  checkpoint?: string;
  env?: string;
  split: Split;
  samples: number;
  tasks?: number;
  out?: string;
  horizon?: number;
  seed: number;
  concurrency: number;
  maxRetries: number;
  envTimeout: number;
  backend: BackendPreference;
  maxAborted: number;
  token?: string;
  json?: boolean;
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

/** Where an evaluation goes when `--out` is not given. */
export const defaultEvalDir = (env: string, agent: string, split: Split, samples: number) => path.join('evals', `${env}-${slug(agent)}-${split}-n${samples}`);

export function registerEval(program: Command): void {
  const command = program
    .command('eval')
    .description('evaluate an agent on a split: Avg@n and Pass@k overall and per task category, written to --out; re-running the same command resumes it')
    .option('--agent <agent>', `who acts: ${AGENT_FORMS.replaceAll(', ', ' | ')}`)
    .option('--checkpoint <dir>', 'shorthand for --agent checkpoint:DIR (then --env defaults to the env it trained on)')
    .option('--env <id>', 'environment id (see `actorgym envs`)')
    .addOption(new Option('--split <split>', 'task split').choices(['train', 'test']).default('test'))
    .option('--samples <n>', 'n: episodes of each task (Avg@n, Pass@1..n)', positiveInt('--samples'), 1)
    .option('--tasks <n>', 'evaluate the first N tasks of the split (default: all)', positiveInt('--tasks'))
    .option('--out <dir>', 'evaluation directory: config.json, episodes.jsonl, results.json, results.md (default: evals/<env>-<agent>-<split>-n<samples>)')
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--seed <n>', 'run seed; each (task, sample) derives its own, so a resumed run replays the same episodes', nonNegativeInt('--seed'), 0)
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 32)
    .option('--max-retries <n>', 'retries of a (task, sample) aborted by infrastructure; one still aborted is missing (never a failure), and re-running the command retries it', nonNegativeInt('--max-retries'), 2)
    .option('--env-timeout <ms>', 'deadline of each env call, the remote connection\'s start-up calls included', positiveInt('--env-timeout'), 30_000)
    .addOption(new Option('--backend <backend>', 'tfjs backend of a checkpoint agent').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--json', 'print the results.json object on stdout');
  addRemoteOptions(command);
  addMaxAbortedOption(command, '(task, sample) pairs');
  addLlmOptions(command).action(async (options: EvalOptions) => {
    if (options.agent !== undefined && options.checkpoint !== undefined) throw new Error('give --agent or --checkpoint, not both');
    const agentText = options.checkpoint !== undefined ? `checkpoint:${options.checkpoint}` : options.agent;
    if (agentText === undefined) throw new Error(`give --agent (${AGENT_FORMS}) or --checkpoint DIR`);
    if (options.env === undefined && !agentText.startsWith('checkpoint:')) throw new Error('give --env (only a checkpoint agent knows its own env)');
    const agent = await resolveAgent(agentText, {
      ...(options.env !== undefined ? { env: options.env } : {}),
      llm: llmOptionsFrom(options),
      backend: options.backend,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    });
    try {
      const envId = options.env ?? agent.env;
      if (envId === undefined) throw new Error('give --env');
      if (agent.backend !== undefined) process.stderr.write(`backend: ${agent.backend} · agent ${agent.name}\n`);
      const token = options.token ?? process.env.ACTORGYM_TOKEN;
      const env = await resolveCommandEnv(envId, options, token, options.envTimeout);
      const out = options.out ?? defaultEvalDir(envId, agent.name, options.split, options.samples);
      const interrupt = new AbortController();
      const onSigint = () => interrupt.abort();
      process.once('SIGINT', onSigint);
      // An endpoint that rejects the request or a replay that diverges would fail every episode alike.
      agent.watchFatal?.(() => interrupt.abort());
      let progress: ReturnType<typeof showRunProgress>;
      try {
        const run = await runEvaluation({
          env,
          agent: agent.spec,
          agentName: agent.name,
          split: options.split,
          samples: options.samples,
          ...(options.tasks !== undefined ? { tasks: options.tasks } : {}),
          out,
          seed: options.seed,
          concurrency: options.concurrency,
          ...(options.horizon !== undefined ? { horizon: options.horizon } : {}),
          maxRetries: options.maxRetries,
          maxLostRetries: options.maxLostRetries,
          envTimeoutMs: options.envTimeout,
          ...(agent.agentTimeoutMs !== undefined ? { agentTimeoutMs: agent.agentTimeoutMs } : {}),
          signal: interrupt.signal,
          ...(agent.usage ? { usage: agent.usage } : {}),
          onStart: ({ events, episodes, done, total }) => {
            if (done > 0) process.stderr.write(`resuming ${out}: ${done} of ${total} (task, sample) pairs done, running ${episodes}\n`);
            progress = showRunProgress(events, episodes, options.maxRetries, !options.json);
          },
        });
        const fatal = agent.fatalError?.();
        if (fatal) throw fatal;
        if (run.cutBytes > 0) process.stderr.write(`removed a cut last line (${run.cutBytes} bytes) from ${run.dir}/episodes.jsonl\n`);
        if (run.alreadyComplete) process.stderr.write(`${run.dir} is already complete; nothing was run\n`);
        if (options.json) printJson(run.results);
        else printEvalSummary(run.results, run.dir);
        if (!run.results.complete) {
          process.stderr.write(`warning: ${run.results.missing} (task, sample) pairs have no result (${run.results.outcomes.aborted} aborted by infrastructure); re-run the same command to finish\n`);
        }
        // Avg@n and Pass@k are over the pairs that have a result; past --max-aborted missing ones, exit 1.
        const pairs = run.results.tasks * run.results.n;
        enforceMaxAborted({ unscored: run.results.missing, total: pairs, detail: `${run.results.outcomes.aborted} aborted by infrastructure` }, options.maxAborted, '(task, sample) pairs');
      } catch (error) {
        // Keep the code visible, as EnvError's are (`EVAL_CONFIG_MISMATCH: …`).
        if (error instanceof EvalError) throw new Error(`${error.code}: ${error.message}`);
        throw error;
      } finally {
        progress?.unsubscribe();
        process.off('SIGINT', onSigint);
        await closeRemote(env);
      }
    } finally {
      await agent.dispose();
    }
  });
}
