/**
 * Writes tests/fixtures/hf/qwen2-tiny-chat/ and qwen3-tiny-chat/: the tiny Qwen2 and Qwen3 models
 * of scripts/hf/make-tiny-models.py paired with the tiny byte-level tokenizer
 * (tests/fixtures/hf/tokenizer/tiny/), so HfPolicy can be run on an env end to end.
 *
 * Why not the tiny models' own folders: their vocabulary is 256 ids, and no byte-level tokenizer
 * fits in 256 (the 256 bytes plus the chat template's added tokens). So each chat fixture is its
 * model's config.json with vocab_size 384 (the tiny tokenizer's size) and max_position_embeddings
 * 8192 (RoPE has no learned positions; a BabyAI prompt alone is about 1,000 tokens), and fresh
 * normal(0, initializer_range) weights from a fixed seed. The models are random: they are for
 * plumbing, not for succeeding at tasks.
 *
 * Qwen2: the Qwen2.5-style template (tests/fixtures/hf/tokenizer/templates/, a default system
 * message when the conversation has none) as chat_template.jinja, and a generation_config.json
 * naming <|im_end|> and <|endoftext|> as Qwen2.5's does. Qwen3: the tiny tokenizer's own template.
 *
 *   npx tsx tests/policy/hf/agent/make-chat-fixtures.ts
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHfConfig } from '../../../../policy/hf/config.ts';
import { writeSafetensors } from '../../../../policy/hf/safetensors/write-safetensors.ts';
import { expectedTensors } from '../../../../policy/hf/tensor-names.ts';
import { mulberry32 } from '../../../../policy/rng.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/hf');
const TOKENIZER = path.join(FIXTURES, 'tokenizer/tiny');

async function writeModel(dir: string, config: Record<string, unknown>, seed: number): Promise<void> {
  const rng = mulberry32(seed);
  const std = Number(config.initializer_range ?? 0.02);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const tensors = expectedTensors(parseHfConfig(config)).map((t) => {
    const n = t.shape.reduce((a, b) => a * b, 1);
    const isNorm = t.name.endsWith('norm.weight');
    return { name: t.name, shape: t.shape, data: Float32Array.from({ length: n }, () => (isNorm ? 1 : std * normal())) };
  });
  writeFileSync(path.join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  await writeSafetensors(path.join(dir, 'model.safetensors'), tensors, { format: 'pt' });
}

async function makeChatFixture(source: string, seed: number, template: 'qwen2.5-style' | 'tiny'): Promise<void> {
  const dir = path.join(FIXTURES, `${source}-chat`);
  mkdirSync(dir, { recursive: true });
  const config = JSON.parse(readFileSync(path.join(FIXTURES, source, 'config.json'), 'utf8')) as Record<string, unknown>;
  await writeModel(dir, { ...config, vocab_size: 384, max_position_embeddings: 8192 }, seed);
  copyFileSync(path.join(TOKENIZER, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  const tokenizerConfig = JSON.parse(readFileSync(path.join(TOKENIZER, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  if (template === 'qwen2.5-style') {
    delete tokenizerConfig.chat_template;
    copyFileSync(path.join(FIXTURES, 'tokenizer/templates/qwen2.5-style.jinja'), path.join(dir, 'chat_template.jinja'));
    writeFileSync(path.join(dir, 'generation_config.json'), `${JSON.stringify({ eos_token_id: [2, 0], pad_token_id: 0 }, null, 2)}\n`);
  }
  writeFileSync(path.join(dir, 'tokenizer_config.json'), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
}

await makeChatFixture('qwen2-tiny', 3601, 'qwen2.5-style');
await makeChatFixture('qwen3-tiny', 3602, 'tiny');
