/** `actorgym serve-policy --policy hf:DIR [--adapter DIR]`: a Hugging Face model folder served (its options are in serve-policy.ts). */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { selectBackend } from '../../policy/backend.ts';
import { describeEstimate } from '../../policy/hf/memory-estimate.ts';
import { loadServedHf, startHfPolicyServer } from '../../servers/policy-server/hf/index.ts';
import type { PolicyListenOptions, PolicyServer } from '../../servers/policy-server/policy-server.ts';
import type { ServePolicyOptions } from './serve-policy.ts';

export interface ServedHf {
  readonly server: PolicyServer<unknown>;
  dispose(): void;
}

export async function serveHf(spec: { readonly dir: string; readonly adapter?: string }, options: ServePolicyOptions, listen: PolicyListenOptions): Promise<ServedHf> {
  for (const [flag, dir, file] of [['--policy hf:', spec.dir, 'config.json'], ['--adapter ', spec.adapter, 'adapter_config.json']] as const) {
    if (dir !== undefined && !existsSync(path.join(dir, file))) {
      throw new Error(`${flag}${dir}: ${path.join(dir, file)} does not exist (${file === 'config.json' ? 'a Hugging Face model folder holds config.json, model.safetensors, tokenizer.json and tokenizer_config.json' : 'a peft adapter folder holds adapter_config.json and adapter_model.safetensors'})`);
    }
  }
  const backend = await selectBackend(options.backend);
  const hf = await loadServedHf(spec.dir, spec.adapter !== undefined ? { adapter: spec.adapter } : {});
  try {
    const server = await startHfPolicyServer({
      ...listen,
      model: hf.model,
      tokenizer: hf.tokenizer,
      modelId: hf.modelId,
      aliases: hf.aliases,
      ...(options.maxNewTokens !== undefined ? { defaultMaxTokens: options.maxNewTokens, maxTokensCap: options.maxNewTokens } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    });
    const context = hf.model.config.maxPositionEmbeddings;
    process.stderr.write(
      `backend: ${backend} · ${hf.dir}${hf.adapter !== undefined ? ` + adapter ${hf.adapter}` : ''} · ${describeEstimate(hf.estimate, { batch: 1, context: Math.min(context, 2048) })} · context ${context} · temperature ${options.temperature ?? 1}\n`,
    );
    return { server, dispose: () => hf.dispose() };
  } catch (error) {
    hf.dispose();
    throw error;
  }
}
