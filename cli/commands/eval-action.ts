/** What `actorgym eval` does (its options are in eval.ts). */
import { EvalError } from '../../eval/eval-error.ts';
import { runEvaluation } from '../../eval/run-eval.ts';
import { AGENT_FORMS, resolveAgent } from '../agent-spec.ts';
import { closeRemote } from '../close-remote.ts';
import { printEvalSummary } from '../eval-summary.ts';
import { INTERRUPTED_EXIT_CODE, onInterrupt } from '../interrupt.ts';
import { hfAgentOptionsFrom, llmOptionsFrom } from '../llm-options.ts';
import { enforceMaxAborted } from '../max-aborted.ts';
import { printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { resolveCommandEnv } from '../remote-options.ts';
import { defaultEvalDir, type EvalOptions } from './eval.ts';
import { screenshotEnv } from './eval-screenshots.ts';
import { judgedWebEnv } from '../judge-option.ts';

export async function runEval(options: EvalOptions): Promise<void> {
  if (options.agent !== undefined && options.checkpoint !== undefined) throw new Error('give --agent or --checkpoint, not both');
  const agentText = options.checkpoint !== undefined ? `checkpoint:${options.checkpoint}` : options.agent;
  if (agentText === undefined) throw new Error(`give --agent (${AGENT_FORMS}) or --checkpoint DIR`);
  if (options.env === undefined && !agentText.startsWith('checkpoint:')) throw new Error('give --env (only a checkpoint agent knows its own env)');
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
    const token = options.token ?? process.env.ACTORGYM_TOKEN;
    const judged = options.judge !== undefined ? await judgedWebEnv(envId, options) : undefined;
    const env = judged?.env ?? (options.screenshots ? await screenshotEnv(envId, options.remote) : await resolveCommandEnv(envId, options, token, options.envTimeout));
    const splitSize = env.tasks(options.split).length;
    if (options.tasks !== undefined && options.tasks > splitSize) {
      await closeRemote(env);
      throw new Error(`--tasks ${options.tasks} is past the ${splitSize} tasks of the ${options.split} split of ${envId}; give --tasks ${splitSize} or less (--samples runs each task more than once)`);
    }
    const out = options.out ?? defaultEvalDir(envId, agent.name, options.split, options.samples);
    const interrupt = new AbortController();
    const sigint = onInterrupt('stopping: no new episodes; what finished is kept', () => interrupt.abort());
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
        ...(judged ? { judge: judged.name } : {}),
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
      if (sigint.interrupted) {
        const done = run.results.tasks * run.results.n - run.results.missing;
        process.stderr.write(`interrupted: ${done} of ${run.results.tasks * run.results.n} (task, sample) pairs have a result in ${run.dir}; re-run the same command to finish\n`);
        process.exitCode = INTERRUPTED_EXIT_CODE;
        return;
      }
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
      sigint.dispose();
      await judged?.close();
      await closeRemote(env);
    }
  } finally {
    await agent.dispose();
  }
}
