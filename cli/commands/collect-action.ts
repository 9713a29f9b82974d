/** What `actorgym collect` does (its options are in collect.ts). */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Subject } from 'rxjs';
import { collectDemos } from '../../actors/collect-demos.ts';
import { writeDemos } from '../../demos/write-demos.ts';
import type { RunEvent } from '../../streams/events.ts';
import { resolveAgent } from '../agent-spec.ts';
import { closeRemote } from '../close-remote.ts';
import { INTERRUPTED_EXIT_CODE, onInterrupt } from '../interrupt.ts';
import { hfAgentOptionsFrom, llmOptionsFrom } from '../llm-options.ts';
import { percent, printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { resolveCommandEnv } from '../remote-options.ts';
import { printLlmUsage } from '../summary.ts';
import type { CollectOptions } from './collect.ts';
import type { TokenRecordingPolicy } from '../../demos/token-recording-policy.ts';
import type { Demo } from '../../demos/demo.ts';
import type { EnvDefinition } from '../../envs/contract.ts';
import { writeTokenRecords } from '../../demos/write-token-records.ts';
import { recordOfDemo, tokenRecorder } from '../token-records-out.ts';

/** `--format tokens`: every written demo's token record, the file whole; returns the drifting turns (warned about on stderr). */
function writeTokenFile(options: CollectOptions, demos: readonly Demo[], recorder: TokenRecordingPolicy, env: EnvDefinition): number {
  const place = { env, split: options.split };
  const horizon = options.horizon ?? env.spec.defaultHorizon;
  const records = demos.map((demo) => recordOfDemo(demo, recorder, place, horizon));
  writeTokenRecords(options.out, records);
  const driftTurns = records.reduce((n, r) => n + (r.drift ?? 0), 0);
  if (driftTurns > 0) {
    process.stderr.write(`warning: ${driftTurns} turn(s) drift: their ids differ from re-tokenizing their text (the records keep the sampled ids; check that --tokenizer is the served model's)\n`);
  }
  return driftTurns;
}

export async function runCollect(options: CollectOptions): Promise<void> {
  const dir = path.dirname(path.resolve(options.out));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--out ${options.out}: directory ${dir} does not exist`);
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  const env = await resolveCommandEnv(options.env, options, token, options.envTimeout);
  const splitSize = env.tasks(options.split).length;
  if (options.episodes !== undefined && options.episodes > splitSize) {
    await closeRemote(env);
    throw new Error(`--episodes ${options.episodes} is past the ${splitSize} tasks of the ${options.split} split of ${options.env}; give --episodes ${splitSize} or less (--samples runs each task more than once)`);
  }
  const agent = await resolveAgent(options.agent, {
    env: options.env, llm: llmOptionsFrom(options), hf: hfAgentOptionsFrom(options), backend: options.backend,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
  let recorder: TokenRecordingPolicy | undefined;
  try {
    if (options.format === 'tokens') recorder = tokenRecorder(agent, options.agent);
  } catch (error) {
    await agent.dispose();
    await closeRemote(env);
    throw error;
  }
  const total = (options.episodes ?? env.tasks(options.split).length) * options.samples;
  const events = new Subject<RunEvent>();
  const progress = showRunProgress(events, total, options.maxRetries, !options.json);
  const stopper = new AbortController();
  agent.watchFatal?.((error) => stopper.abort(error));
  const interrupt = onInterrupt('stopping: collect writes its file whole or not at all, so nothing is written', () =>
    stopper.abort(new Error('interrupted (SIGINT); nothing written')),
  );
  const started = performance.now();
  try {
    const result = await collectDemos({
      env, agent: recorder ?? agent.spec, agentName: options.agent, split: options.split, samples: options.samples, seed: options.seed,
      concurrency: options.concurrency, onlySuccess: options.onlySuccess === true, envTimeoutMs: options.envTimeout,
      maxRetries: options.maxRetries, maxLostRetries: options.maxLostRetries, signal: stopper.signal, events,
      ...(options.episodes !== undefined ? { episodes: options.episodes } : {}),
      pick: options.pick,
      ...(options.shuffle ? { shuffle: true } : {}),
      ...(options.horizon !== undefined ? { horizon: options.horizon } : {}),
      ...(agent.agentTimeoutMs !== undefined ? { agentTimeoutMs: agent.agentTimeoutMs } : {}),
    }).catch((error: unknown) => {
      throw agent.fatalError?.() ?? error;
    });
    const fatal = agent.fatalError?.();
    if (fatal) throw fatal;
    events.complete();
    const driftTurns = recorder !== undefined ? writeTokenFile(options, result.demos, recorder, env) : undefined;
    if (options.format !== 'tokens') writeDemos(options.out, result.demos, options.format, { env });
    const counts = {
      out: options.out, format: options.format, env: options.env, agent: options.agent, split: options.split,
      episodes: result.episodes, successes: result.successes, successRate: result.summary.successRate,
      written: result.demos.length, filtered: result.filtered, aborted: result.aborted,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      ...(driftTurns !== undefined ? { driftTurns } : {}),
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
  } catch (error) {
    if (!interrupt.interrupted) throw error;
    process.stderr.write(`interrupted: nothing written to ${options.out}\n`);
    process.exitCode = INTERRUPTED_EXIT_CODE;
  } finally {
    interrupt.dispose();
    events.complete();
    progress?.unsubscribe();
    await agent.dispose();
    await closeRemote(env);
  }
}
