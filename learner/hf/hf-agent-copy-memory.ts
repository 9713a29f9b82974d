/**
 * What the agent's own weights cost a full fine-tuning run under asynchronous training, and a
 * refusal when that cannot fit the backend's heap (policy/hf/memory-estimate.ts).
 *
 * Full fine-tuning holds, besides the loaded model's estimate (the base weights, the KL
 * reference; the KV cache; activations), the trained copy, its gradients and Adam's two moments:
 * 4 more copies of the weights (docs/hf-models.md: "about 5× the weights"). Asynchronous training adds up to 2: the agent's version (hf-agent-weights.ts) and a
 * published version waiting to be applied while the learner trains on. Each is parameters × 4
 * bytes (float32). LoRA's copies are the adapters only, which is why this applies to full mode.
 */
import { BACKEND_MEMORY_LIMITS, GIB, type MemoryEstimate } from '../../policy/hf/memory-estimate.ts';

/** Copies of the weights beyond the loaded model in synchronous full fine-tuning: trained, gradients, Adam's m and v. */
export const FULL_SYNC_EXTRA_COPIES = 4;
/** Asynchronous training's more: the agent's version and a published one waiting to be applied. */
export const AGENT_COPIES = 2;

const gib = (bytes: number): string => `${(bytes / GIB).toFixed(2)} GiB`;

/** Bytes a full fine-tuning run holds with (or without) the agent's copies. */
export function fullFineTuningBytes(estimate: MemoryEstimate, agentCopy: boolean): number {
  return estimate.totalBytes + (FULL_SYNC_EXTRA_COPIES + (agentCopy ? AGENT_COPIES : 0)) * estimate.parameterBytes;
}

/** Throws when full fine-tuning with the agent's own weights (asynchronous training) exceeds the backend's heap. */
export function assertAgentCopyFits(estimate: MemoryEstimate, backend: string, model: string): void {
  const limit = BACKEND_MEMORY_LIMITS[backend];
  const total = fullFineTuningBytes(estimate, true);
  if (limit === undefined || total <= limit) return;
  throw new Error(
    `asynchronous full fine-tuning of ${model} (${(estimate.parameters / 1e6).toFixed(1)}M parameters) needs about ${gib(total)}: ` +
      `the loaded model's ${gib(estimate.totalBytes)}, the trained weights, their gradients and Adam's two moments (${gib(FULL_SYNC_EXTRA_COPIES * estimate.parameterBytes)}) ` +
      `and the agent's own copies (its version and one published, ${gib(AGENT_COPIES * estimate.parameterBytes)}); ` +
      `that does not fit the ${backend} backend's ${gib(limit)} heap. Train with --finetune lora, synchronously (--max-staleness 0 or no --async), ` +
      'or on the tensorflow backend (@tensorflow/tfjs-node)',
  );
}
