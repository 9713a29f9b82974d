import { Option, type Command } from 'commander';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import type { Split } from '../../envs/contract.ts';
import { AGENT_FORMS, resolveAgent } from '../agent-spec.ts';
import { addLlmOptions, llmOptionsFrom, type LlmFlags } from '../llm-options.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend.ts';
import { nonNegativeInt, port, positiveInt, printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { closeRemote } from '../close-remote.ts';
import { addMaxAbortedOption, enforceMaxAborted, reasonList } from '../max-aborted.ts';
import { addRemoteOptions, resolveCommandEnv, serverStats, type RemoteFlags } from '../remote-options.ts';
import { addEventsPortOptions, serveEventsPort, type EventsPortFlags } from '../events-port.ts';
import { printLlmUsage, printRolloutSummary } from '../summary.ts';

interface RolloutOptions extends LlmFlags, EventsPortFlags, RemoteFlags {
  env: string;
  agent: string;
  split: Split;
  episodes?: number;
  concurrency: number;
  horizon?: number;
  schedule?: string;
  seed: number;
  token?: string;
  eventsPort?: number;
  maxRetries: number;
  maxAborted: number;
  envTimeout: number;
  backend: BackendPreference;
  json?: boolean;
}

export function registerRollout(program: Command): void {
  const command = program
    .command('rollout')
    .description('run episodes of an env with an agent and report success rate, mean reward and turns')
    .requiredOption('--env <id>', 'environment id (see `actorgym envs`)')
    .option('--agent <agent>', `who acts: ${AGENT_FORMS.replaceAll(', ', ' | ')}`, 'random')
    .addOption(new Option('--split <split>', 'task split').choices(['train', 'test']).default('test'))
    .option('--episodes <n>', 'episodes to run (default: the whole split)', positiveInt('--episodes'))
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 16)
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--schedule <schedule>', 'horizon schedule instead of --horizon, e.g. fixed:20')
    .option('--seed <n>', 'run seed; the same seed replays the same run', nonNegativeInt('--seed'), 0)
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--events-port <port>', 'serve the live event stream over WebSocket on this port', port)
    .option('--max-retries <n>', 'retries of an episode aborted by infrastructure', nonNegativeInt('--max-retries'), 1)
    .option('--env-timeout <ms>', 'deadline of each env call, the remote connection\'s start-up calls included', positiveInt('--env-timeout'), 30_000)
    .addOption(new Option('--backend <backend>', 'tfjs backend of a checkpoint agent').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--json', 'print one JSON object with the summary on stdout (with `llm` usage for an openai: agent, `servers` for --remote)');
  addRemoteOptions(command);
  addMaxAbortedOption(command);
  addEventsPortOptions(command);
  addLlmOptions(command).action(async (options: RolloutOptions) => {
    if (options.horizon !== undefined && options.schedule !== undefined) throw new Error('give --horizon or --schedule, not both');
    const token = options.token ?? process.env.ACTORGYM_TOKEN;
    const env = await resolveCommandEnv(options.env, options, token, options.envTimeout);
    const agent = await resolveAgent(options.agent, {
      env: options.env,
      llm: llmOptionsFrom(options),
      backend: options.backend,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    });
    const system = createRolloutSystem({
      env,
      agent: agent.spec,
      split: options.split,
      ...(options.episodes !== undefined ? { episodes: options.episodes } : {}),
      concurrency: options.concurrency,
      ...(options.horizon !== undefined ? { schedule: `fixed:${options.horizon}` } : {}),
      ...(options.schedule !== undefined ? { schedule: options.schedule } : {}),
      seed: options.seed,
      maxRetries: options.maxRetries,
      maxLostRetries: options.maxLostRetries,
      envTimeoutMs: options.envTimeout,
      ...(agent.agentTimeoutMs !== undefined ? { agentTimeoutMs: agent.agentTimeoutMs } : {}),
    });
    // Before the run: subscribers see it from `run.started`; close() below drains them.
    const eventServer = await serveEventsPort(system.events, options, token ? { token } : {});
    const total = options.episodes ?? env.tasks(options.split).length;
    const progress = showRunProgress(system.events, total, options.maxRetries, !options.json);
    agent.watchFatal?.((error) => system.stop(error.message));
    const interrupt = () => system.stop('interrupted (SIGINT)');
    process.once('SIGINT', interrupt);
    const summary = await system.run();
    process.off('SIGINT', interrupt);
    progress?.unsubscribe();
    await eventServer?.close();
    await agent.dispose();
    const fatal = agent.fatalError?.();
    if (fatal) {
      await closeRemote(env);
      throw fatal;
    }
    const llm = agent.usage?.();
    const servers = serverStats(env);
    if (options.json) printJson({ ...summary, ...(llm ? { llm } : {}), ...(servers ? { servers } : {}) });
    else {
      printRolloutSummary(summary);
      if (llm) printLlmUsage(llm);
    }
    if (summary.outcomes.aborted > 0) {
      process.stderr.write(
        `warning: ${summary.outcomes.aborted} episode(s) aborted by infrastructure failures (not scored); see outcomes.aborted\n`,
      );
    }
    enforceMaxAborted(
      { unscored: summary.slots - summary.outcomes.success - summary.outcomes.failure - summary.outcomes.truncated, total: summary.slots, detail: `aborted attempts: ${reasonList(summary.abortReasons) || 'none'}` },
      options.maxAborted,
    );
    await closeRemote(env);
  });
}
