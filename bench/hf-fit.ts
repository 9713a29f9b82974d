/**
 * Whether full fine-tuning fits a backend's heap, with the arithmetic to print when it does not:
 * weights, their gradients and Adam's two moments are four float32 copies of every parameter, plus
 * the activations of one batch (policy/hf/memory-estimate.ts's rough bound).
 */
import type { HfModelConfig } from '../policy/hf/config.ts';
import { BACKEND_MEMORY_LIMITS, estimateMemory, GIB } from '../policy/hf/memory-estimate.ts';

export interface Fit {
  readonly fits: boolean;
  readonly arithmetic: string;
}

export function fullFineTuneFit(config: HfModelConfig, batch: number, length: number, backend: string): Fit {
  const e = estimateMemory(config, { batch, context: length });
  const total = 4 * e.parameterBytes + e.activationBytes;
  const limit = BACKEND_MEMORY_LIMITS[backend];
  const gib = (b: number): string => `${(b / GIB).toFixed(2)} GiB`;
  const arithmetic =
    `${(e.parameters / 1e6).toFixed(1)}M parameters × 4 B × 4 (weights, gradients, Adam m and v) = ${gib(4 * e.parameterBytes)}` +
    ` + activations ≈ ${gib(e.activationBytes)} = ${gib(total)}` +
    (limit === undefined ? '' : ` ${total <= limit ? '≤' : '>'} the ${backend} heap's ${gib(limit)}`);
  return { fits: limit === undefined || total <= limit, arithmetic };
}
