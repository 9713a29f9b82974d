/**
 * Evaluation of a transformer on a split, through the ordinary rollout system, so it prints and
 * returns exactly what `rollout --json` does. Temperature 0 decodes greedily; the default
 * (temperature 1) samples, as the rollouts it was trained on did.
 */
import type { Observer } from 'rxjs';
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import { FilteredPolicy, type ObservationFilter } from '../../policy/observation-filter.ts';
import type { Tokenizer } from '../../policy/tokenizer.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import type { Transformer } from '../../policy/transformer/transformer.ts';
import type { contextOptions } from '../../learner/training-config.ts';
import type { RolloutSummary, RunEvent } from '../../streams/events.ts';
import { createRolloutSystem } from '../rollout-system.ts';

export interface EvaluateOptions {
  readonly env: EnvDefinition;
  readonly model: Transformer;
  readonly tokenizer: Tokenizer;
  readonly observation: ObservationFilter;
  /** Actions taken out of the policy's choices (TrainingConfig.hiddenActions). */
  readonly hiddenActions?: readonly string[];
  /** Context options of the run (learner/training-config.ts contextOptions). */
  readonly context?: ReturnType<typeof contextOptions>;
  readonly split: Split;
  /** Default: the whole split. */
  readonly episodes?: number;
  readonly horizon: number;
  readonly temperature: number;
  readonly seed: number;
  readonly concurrency: number;
  readonly name?: string;
  readonly events?: Partial<Observer<RunEvent>>;
  /** Aborting stops the evaluation: no new episodes, running ones end as aborted; the summary is of what finished. */
  readonly signal?: AbortSignal;
}

export async function evaluate(options: EvaluateOptions): Promise<RolloutSummary> {
  const inner = new TransformerPolicy(options.model, options.tokenizer, { temperature: options.temperature, name: options.name ?? 'transformer', ...options.context });
  const policy = new FilteredPolicy(inner, options.observation, { hide: options.hiddenActions ?? [] });
  const system = createRolloutSystem({
    env: options.env,
    agent: policy,
    split: options.split,
    ...(options.episodes !== undefined ? { episodes: options.episodes } : {}),
    concurrency: options.concurrency,
    schedule: `fixed:${options.horizon}`,
    seed: options.seed,
    runId: `eval-${options.split}`,
  });
  const forwarding = options.events?.next ? system.events.subscribe({ next: (e) => options.events?.next?.(e) }) : undefined;
  const stop = () => system.stop(`evaluation stopped: ${String(options.signal?.reason instanceof Error ? options.signal.reason.message : 'aborted')}`);
  try {
    const running = system.run();
    if (options.signal?.aborted) stop();
    else options.signal?.addEventListener('abort', stop, { once: true });
    return await running;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    forwarding?.unsubscribe();
    inner.dispose();
  }
}
