/**
 * The projections a LoRA config adapts in a given model: each one's transformers module path
 * (`model.layers.N.self_attn.q_proj`, which peft's tensor names extend) and its in/out sizes.
 */
import type { HfModelConfig } from '../config.ts';
import { layerPrefix } from '../tensor-names.ts';
import type { LoraTargetModule } from './lora-config.ts';

export interface LoraModule {
  /** transformers module path, e.g. `model.layers.0.self_attn.q_proj`. */
  readonly path: string;
  readonly layer: number;
  readonly target: LoraTargetModule;
  readonly inFeatures: number;
  readonly outFeatures: number;
}

type Shape = Pick<HfModelConfig, 'hiddenSize' | 'intermediateSize' | 'numHeads' | 'numKvHeads' | 'headDim' | 'numLayers'>;

/** [block, in, out] of each target. */
function geometry(target: LoraTargetModule, c: Shape): [string, number, number] {
  const H = c.hiddenSize;
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  switch (target) {
    case 'q_proj':
      return ['self_attn', H, q];
    case 'k_proj':
    case 'v_proj':
      return ['self_attn', H, kv];
    case 'o_proj':
      return ['self_attn', q, H];
    case 'gate_proj':
    case 'up_proj':
      return ['mlp', H, c.intermediateSize];
    case 'down_proj':
      return ['mlp', c.intermediateSize, H];
  }
}

/** Layer by layer, targets in model order. */
export function loraModules(config: Shape, targets: readonly LoraTargetModule[]): LoraModule[] {
  const out: LoraModule[] = [];
  for (let layer = 0; layer < config.numLayers; layer++) {
    for (const target of targets) {
      const [block, inFeatures, outFeatures] = geometry(target, config);
      out.push({ path: `${layerPrefix(layer)}.${block}.${target}`, layer, target, inFeatures, outFeatures });
    }
  }
  return out;
}
