/** What `actorgym eval` does (its options are in eval.ts): resolve the agent, open the env, evaluate, report. */
import type { EnvDefinition } from '../../envs/contract.ts';
import { EvalError } from '../../eval/eval-error.ts';
import { missingWhy } from '../../eval/results-md.ts';
import { runEvaluation, type EvalRun } from '../../eval/run-eval.ts';
import { AGENT_FORMS, resolveAgent, type ResolvedAgent } from '../agent-spec.ts';
import { closeRemote } from '../close-remote.ts';
import { printEvalSummary } from '../eval-summary.ts';
import { INTERRUPTED_EXIT_CODE, onInterrupt } from '../interrupt.ts';
import { hfAgentOptionsFrom, llmOptionsFrom } from '../llm-options.ts';
import { enforceMaxAborted } from '../max-aborted.ts';
import { printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { resolveCommandEnv } from '../remote-options.ts';
import { defaultEvalDir, type EvalOptions } from './eval.ts';
import { resultOptions } from './eval-options.ts';
import { screenshotEnv } from './eval-screenshots.ts';
import { judgedWebEnv, type JudgedEnv } from '../judge-option.ts';

export async function runEval(options: EvalOptions): Promise<void> {
  const agentText = agentOf(options);
  const agent = await resolveAgent(agentText, {
    ...(options.env !== undefined ? { env: options.env } : {}),
    llm: llmOptionsFrom(options), hf: hfAgentOptionsFrom(options),
    backend: options.backend,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
  try {
    const envId = options.env ?? agent.env;
    if (envId === undefined) throw new Error('give --env');
    if (agent.backend !== undefined) process.stderr.write(`backend: ${agent.backend} · agent ${agent.name}\n`);
    const judged = options.judge !== undefined ? await judgedWebEnv(envId, options) : undefined;
    const env = await openEnv(options, envId, judged);
    try {
      await evaluate(options, agentText, agent, env, envId, judged?.name);
    } catch (error) {
      // Keep the code visible, as EnvError's are (`EVAL_CONFIG_MISMATCH: …`).
      if (error instanceof EvalError) throw new Error(`${error.code}: ${error.message}`);
      throw error;
    } finally {
      await judged?.close();
      await closeRemote(env);
    }
  } finally {
    await agent.dispose();
  }
}

/** `--agent` or `--checkpoint`, checked before anything loads. */
function agentOf(options: EvalOptions): string {
  if (options.agent !== undefined && options.checkpoint !== undefined) throw new Error('give --agent or --checkpoint, not both');
  const agentText = options.checkpoint !== undefined ? `checkpoint:${options.checkpoint}` : options.agent;
  if (agentText === undefined) throw new Error(`give --agent (${AGENT_FORMS}) or --checkpoint DIR`);
  if (options.env === undefined && !agentText.startsWith('checkpoint:')) throw new Error('give --env (only a checkpoint agent knows its own env)');
  return agentText;
}

/** The env: judged (`--judge`), with screenshots, or as `--env`/`--remote` give it. */
async function openEnv(options: EvalOptions, envId: string, judged: JudgedEnv | undefined): Promise<EnvDefinition> {
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  const env = judged?.env ?? (options.screenshots ? await screenshotEnv(envId, options.remote) : await resolveCommandEnv(envId, options, token, options.envTimeout));
  const splitSize = env.tasks(options.split).length;
  if (options.tasks !== undefined && options.tasks > splitSize) {
    await closeRemote(env);
    throw new Error(`--tasks ${options.tasks} is past the ${splitSize} tasks of the ${options.split} split of ${envId}; give --tasks ${splitSize} or less (--samples runs each task more than once)`);
  }
  return env;
}

async function evaluate(options: EvalOptions, agentText: string, agent: ResolvedAgent, env: EnvDefinition, envId: string, judge: string | undefined): Promise<void> {
  const out = options.out ?? defaultEvalDir(envId, agent.name, options.split, options.samples);
  const interrupt = new AbortController();
  const sigint = onInterrupt('stopping: no new episodes; what finished is kept', () => interrupt.abort());
  // An endpoint that rejects the request, is unreachable, or a replay that diverges would fail every episode alike.
  agent.watchFatal?.(() => interrupt.abort());
  let progress: ReturnType<typeof showRunProgress>;
  try {
    const run = await runEvaluation({
      env,
      agent: agent.spec,
      agentName: agent.name,
      agentOptions: resultOptions(options, agentText),
      split: options.split,
      samples: options.samples,
      ...(options.tasks !== undefined ? { tasks: options.tasks } : {}),
      pick: options.pick,
      ...(options.shuffle ? { shuffle: true } : {}),
      out,
      seed: options.seed,
      concurrency: options.concurrency,
      ...(options.horizon !== undefined ? { horizon: options.horizon } : {}),
      maxRetries: options.maxRetries,
      maxLostRetries: options.maxLostRetries,
      envTimeoutMs: options.envTimeout,
      ...(agent.agentTimeoutMs !== undefined ? { agentTimeoutMs: agent.agentTimeoutMs } : {}),
      signal: interrupt.signal,
      ...(options.screenshots ? { screenshots: true } : {}),
      ...(judge !== undefined ? { judge } : {}),
      ...(agent.usage ? { usage: agent.usage } : {}),
      ...(agent.watchCalls ? { watchCalls: agent.watchCalls } : {}),
      onStart: ({ events, episodes, done, total }) => {
        if (done > 0) process.stderr.write(`resuming ${out}: ${done} of ${total} (task, sample) pairs done, running ${episodes}\n`);
        progress = showRunProgress(events, episodes, options.maxRetries, !options.json);
      },
    });
    const fatal = agent.fatalError?.();
    if (fatal) {
      process.stderr.write(`stopped: the evaluation cannot go on (below); what finished is in ${run.dir}; re-run the same command once the cause is fixed\n`);
      throw fatal;
    }
    report(run, options, sigint.interrupted);
  } finally {
    progress?.unsubscribe();
    sigint.dispose();
  }
}

/** The summary (or `--json`), then the exit code: 130 when interrupted, 1 past `--max-aborted`. */
function report(run: EvalRun, options: EvalOptions, interrupted: boolean): void {
  const { results } = run;
  if (run.cutBytes > 0) process.stderr.write(`removed a cut last line (${run.cutBytes} bytes) from ${run.dir}/episodes.jsonl\n`);
  if (run.alreadyComplete) process.stderr.write(`${run.dir} is already complete; nothing was run\n`);
  if (options.json) printJson(results);
  else printEvalSummary(results, run.dir);
  const pairs = results.tasks * results.n;
  if (interrupted) {
    process.stderr.write(`interrupted: ${pairs - results.missing} of ${pairs} (task, sample) pairs have a result in ${run.dir}; re-run the same command to finish\n`);
    process.exitCode = INTERRUPTED_EXIT_CODE;
    return;
  }
  if (!results.complete) process.stderr.write(`warning: ${results.missing} (task, sample) pairs have no result (${missingWhy(results)}); re-run the same command to finish\n`);
  // Avg@n and Pass@k are over the pairs that have a result; past --max-aborted missing ones, exit 1.
  enforceMaxAborted({ unscored: results.missing, total: pairs, detail: missingWhy(results) }, options.maxAborted, '(task, sample) pairs');
}
