/**
 * Runs a batch of prepared generations through `generate` (policy/hf/generate.ts), which takes
 * one temperature and top_p per call: the batch is split into groups of equal sampling settings,
 * each decoded in one batched call for its largest `max_tokens`, and each request's tokens are
 * then cut to its own `max_tokens`. That cut gives exactly what the request would get alone,
 * because `generate` samples each sequence with its own seeded generator and a sequence's tokens
 * do not depend on its neighbours. A group whose longest prompt plus largest `max_tokens` would
 * pass the context (each request fits alone) is decoded in more than one call.
 */
import { generate, type Generation } from '../../../policy/hf/generate.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import type { PreparedGeneration } from './prepare-generation.ts';

export interface BatchRunOptions {
  readonly stopIds: readonly number[];
  readonly padId: number;
  /** Called with the size of each `generate` call (for the server's counters). */
  readonly onGenerate?: (size: number) => void;
}

export async function runGenerationBatch(model: HfCausalLm, batch: readonly PreparedGeneration[], options: BatchRunOptions): Promise<Generation[]> {
  const results: Generation[] = new Array(batch.length);
  for (const group of samplingGroups(batch)) {
    for (const call of fitContext(group, batch, model.config.maxPositionEmbeddings)) {
      const jobs = call.map((i) => batch[i]!);
      const { temperature, topP } = jobs[0]!;
      options.onGenerate?.(jobs.length);
      const generated = await generate(model, jobs.map((j) => ({ prompt: j.promptIds, seed: j.seed })), {
        maxNewTokens: Math.max(...jobs.map((j) => j.maxNewTokens)),
        temperature,
        topP,
        stopIds: options.stopIds,
        padId: options.padId,
      });
      call.forEach((index, k) => (results[index] = cut(generated[k]!, batch[index]!.maxNewTokens)));
    }
  }
  return results;
}

/** Indices of `batch` grouped by sampling settings (top_p does not matter when greedy). */
function samplingGroups(batch: readonly PreparedGeneration[]): number[][] {
  const groups = new Map<string, number[]>();
  batch.forEach((job, i) => {
    const key = job.temperature === 0 ? 'greedy' : `${job.temperature}/${job.topP}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return [...groups.values()];
}

/** Splits a group, in order, into calls whose longest prompt + largest max_tokens fits `context`. */
function fitContext(group: readonly number[], batch: readonly PreparedGeneration[], context: number): number[][] {
  const calls: number[][] = [];
  let current: number[] = [];
  let longest = 0;
  let most = 0;
  for (const index of group) {
    const job = batch[index]!;
    const nextLongest = Math.max(longest, job.promptIds.length);
    const nextMost = Math.max(most, job.maxNewTokens);
    if (current.length > 0 && nextLongest + nextMost > context) {
      calls.push(current);
      current = [];
      longest = job.promptIds.length;
      most = job.maxNewTokens;
    } else {
      longest = nextLongest;
      most = nextMost;
    }
    current.push(index);
  }
  if (current.length > 0) calls.push(current);
  return calls;
}

/** The first `maxNewTokens` of a generation (a cut one ended by length). */
function cut(generation: Generation, maxNewTokens: number): Generation {
  if (generation.tokens.length <= maxNewTokens) return generation;
  return { tokens: generation.tokens.slice(0, maxNewTokens), logProbs: generation.logProbs.slice(0, maxNewTokens), finish: 'length' };
}
