/**
 * One batch of the rollout service (servers/rollout-server/): the rollout system runs each task
 * `groupSize` times with the token-exact LLM policy (`openai:MODEL --tokenizer hf:DIR`), and each
 * scored episode is handed on as a token record as it finishes. Nothing here is a second copy:
 * the episodes are `createRolloutSystem`'s (retries of aborted ones included), the policy is
 * `createTokenLlmPolicy`'s, kept by `TokenRecordingPolicy`, and the record is `tokenRecordOf`'s.
 *
 * Slot keys are `taskIndex × groupSize + sample`, so a record's `sample` is its index in its GRPO
 * group and its `group` the task's index in the split (docs/token-records.md). Episode ids are
 * `<batch id>-s<key>a<attempt>`, unique across batches.
 */
import { existsSync } from 'node:fs';
import { createRolloutSystem } from '../rollout-system.ts';
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import type { EpisodeOutput } from '../../machines/episode-record.ts';
import { createTokenLlmPolicy, type TokenLlmAgent } from '../../policy/llm/create-token-llm-policy.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import { tokenRecordOf } from '../../demos/token-record-of.ts';
import { TokenRecordSchema, type TokenRecord } from '../../demos/token-record.ts';
import { TokenRecordingPolicy } from '../../demos/token-recording-policy.ts';
import { FailFastPolicy } from './fail-fast-policy.ts';

/** A batch, every field resolved (the service's BatchSpec, servers/rollout-server/batch-plan.ts). */
export interface TokenBatchSpec {
  readonly id: string;
  readonly env: EnvDefinition;
  readonly split: Split;
  readonly tasks: readonly string[];
  readonly groupSize: number;
  readonly seed: number;
  readonly horizon: number;
  readonly concurrency: number;
  readonly policy: {
    readonly baseUrl: string;
    readonly model: string;
    /** The tokenizer folder. */
    readonly tokenizer: string;
    readonly temperature?: number;
    /** Nucleus sampling mass in (0, 1], sent as `top_p`. */
    readonly topP?: number;
    readonly maxTokens?: number;
    readonly apiKey?: string;
  };
}

/** How batches run: the LLM client's and the rollout system's retry and deadline settings. */
export interface TokenBatchOptions {
  /** Retries of one LLM call (client side, with backoff). Default 4. */
  readonly llmRetries?: number;
  /** Deadline of one LLM call attempt (ms). Default 120 000. */
  readonly llmTimeoutMs?: number;
  /** Retries of an aborted episode. Default 2. */
  readonly maxRetries?: number;
  /** Further retries of an episode whose env server was lost. Default 10. */
  readonly maxLostRetries?: number;
  /** Deadline of each env call (ms). Default 30 000. */
  readonly envTimeoutMs?: number;
}

export type TokenBatchEnd = { readonly ok: true; readonly summary: RolloutSummary } | { readonly ok: false; readonly message: string; readonly summary?: RolloutSummary };

export interface TokenBatch {
  readonly done: Promise<TokenBatchEnd>;
  cancel(reason: string): void;
}

/** A refusal naming the request field it is about (the service answers it 400). */
export class BatchRefused extends Error {
  constructor(message: string, readonly field: string) {
    super(message);
  }
}

function openPolicy(spec: TokenBatchSpec, options: TokenBatchOptions): TokenLlmAgent {
  const { policy } = spec;
  if (!existsSync(policy.tokenizer)) throw new BatchRefused(`policy.tokenizer: no folder "${policy.tokenizer}" on the rollout service's machine`, 'policy.tokenizer');
  try {
    return createTokenLlmPolicy({
      model: policy.model, env: spec.env, baseURL: policy.baseUrl, tokenizer: policy.tokenizer,
      // The endpoint batches what it gets: the batch's episodes all call at once.
      concurrency: spec.concurrency,
      ...(policy.apiKey !== undefined ? { apiKey: policy.apiKey } : {}),
      ...(policy.temperature !== undefined ? { temperature: policy.temperature } : {}),
      ...(policy.topP !== undefined ? { topP: policy.topP } : {}),
      ...(policy.maxTokens !== undefined ? { maxTokens: policy.maxTokens } : {}),
      ...(options.llmRetries !== undefined ? { retries: options.llmRetries } : {}),
      ...(options.llmTimeoutMs !== undefined ? { timeoutMs: options.llmTimeoutMs } : {}),
    });
  } catch (error) {
    throw new BatchRefused(`policy.tokenizer: ${error instanceof Error ? error.message : String(error)}`, 'policy.tokenizer');
  }
}

/** Makes each scored episode's record; an aborted attempt's kept ids are dropped (it is retried). */
function recordMaker(spec: TokenBatchSpec, recorder: TokenRecordingPolicy): (output: EpisodeOutput) => TokenRecord | undefined {
  const groups = new Map(spec.env.tasks(spec.split).map((task, index) => [task, index]));
  return (output) => {
    const kept = recorder.take(output.episodeId);
    if (output.outcome === 'aborted') return undefined;
    if (kept === undefined) throw new Error(`episode ${output.episodeId} finished but its policy handed back no token ids`);
    return TokenRecordSchema.parse(tokenRecordOf({
      env: spec.env.spec.id, split: spec.split, taskId: output.taskId,
      group: groups.get(output.taskId) ?? -1, sample: output.slot % spec.groupSize,
      episodeId: output.episodeId, policy: { name: recorder.name, version: kept.version }, horizon: output.maxTurns,
      outcome: output.outcome, reward: output.reward, turns: output.trajectory, trajectory: kept.trajectory,
    }));
  };
}

/** How the batch ended, from its summary and the first failure (endpoint down, a record that could not be made, a cancel). */
function endOf(summary: RolloutSummary, failure: string | undefined): TokenBatchEnd {
  if (failure !== undefined) return { ok: false, message: failure, summary };
  const { success, failure: failed, truncated } = summary.outcomes;
  const unscored = summary.slots - success - failed - truncated;
  if (unscored === 0) return { ok: true, summary };
  const reasons = Object.entries(summary.abortReasons).map(([reason, n]) => `${reason} ×${n}`).join(', ');
  return { ok: false, message: `${unscored} of ${summary.slots} episodes could not be scored: aborted through every retry (${reasons || 'no reason recorded'})`, summary };
}

/** The system, or (a bad option) the agent's client closed before the error goes on. */
function createSystem<T>(create: () => T, agent: TokenLlmAgent): T {
  try {
    return create();
  } catch (error) {
    void agent.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Starts a batch; throws `BatchRefused` at once when its tokenizer folder cannot be loaded.
 *
 * @example
 * const batch = startTokenBatch(spec, { record: (r) => res.write(JSON.stringify(r)) });
 * const end = await batch.done;
 */
export function startTokenBatch(spec: TokenBatchSpec, sink: { record(record: TokenRecord): void }, options: TokenBatchOptions = {}): TokenBatch {
  const agent = openPolicy(spec, options);
  let failure: string | undefined;
  const fail = (message: string) => {
    failure ??= message;
    system.stop(message);
  };
  const recorder = new TokenRecordingPolicy(new FailFastPolicy(agent, (error) => fail(`policy endpoint ${spec.policy.baseUrl}: ${error.message}`)));
  const makeRecord = recordMaker(spec, recorder);
  const attempts = (options.llmRetries ?? 4) + 1;
  const system = createSystem(() => createRolloutSystem({
    env: spec.env, agent: recorder, split: spec.split, runId: spec.id, seed: spec.seed,
    slots: spec.tasks.flatMap((taskId, t) => Array.from({ length: spec.groupSize }, (_, g) => ({ taskId, key: t * spec.groupSize + g }))),
    concurrency: spec.concurrency, schedule: `fixed:${spec.horizon}`,
    maxRetries: options.maxRetries ?? 2, maxLostRetries: options.maxLostRetries ?? 10,
    ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
    // As `rollout` has it: every attempt, the longest backoffs, and time queued behind the concurrency limit.
    agentTimeoutMs: attempts * ((options.llmTimeoutMs ?? 120_000) + 30_000) + 3_600_000,
    onEpisode: (output) => {
      if (failure !== undefined) return void recorder.take(output.episodeId);
      try {
        const record = makeRecord(output);
        if (record !== undefined) sink.record(record);
      } catch (error) {
        fail(`token record: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  }), agent);
  const done = system.run().then(
    (summary) => endOf(summary, failure),
    (error: unknown) => ({ ok: false as const, message: error instanceof Error ? error.message : String(error) }),
  ).then(async (end) => {
    await agent.close().catch(() => undefined);
    return end;
  });
  return { done, cancel: (reason) => fail(`cancelled: ${reason}`) };
}
