/**
 * Multi-turn decoding (issue 36, item 4): an HfDecodingSession that keeps each episode's KV cache
 * and reads only each turn's new ids, against re-encoding the whole conversation with generate()
 * at every turn, on the same episodes in one run. Both sides decode greedily, so their replies
 * must be identical and their log-probs equal up to float error (both printed). Prints wall time per side and the tokens each side feeds through
 * the model (prefill/extend columns, not counting padding).
 *
 *   npx tsx bench/hf-multiturn.ts [--backend wasm] [--episodes 4] [--turns 6]
 *
 * Model: a ~1.6M-parameter Qwen2-shaped model with random weights (vocab 2048, hidden 128,
 * 4 layers, 4 heads / 2 kv heads, MLP 512, tied). Episodes: a 64-token prompt, then per turn a
 * 16-token greedy reply and a 32-token observation. No assertions: read one run on a quiet machine.
 */
import os from 'node:os';
import path from 'node:path';

import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { generate } from '../policy/hf/generate.ts';
import { loadHfModel } from '../policy/hf/load-hf-model.ts';
import { writeRandomModel } from './hf-random-model.ts';
import { HfDecodingSession } from '../policy/hf/session/index.ts';
import { mulberry32 } from '../policy/rng.ts';

const CONFIG = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', vocab_size: 2048, hidden_size: 128, intermediate_size: 512,
  num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 4096, rms_norm_eps: 1e-6,
  rope_theta: 1000000.0, tie_word_embeddings: true, hidden_act: 'silu', use_sliding_window: false, bos_token_id: 1, eos_token_id: 2,
};
const PROMPT = 64;
const OBSERVATION = 32;
const REPLY = 16;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

function ids(length: number, rng: { next(): number }): number[] {
  return Array.from({ length }, () => 3 + Math.floor(rng.next() * (CONFIG.vocab_size - 3)));
}

async function main(): Promise<void> {
  const backend = await selectBackend(arg('backend', 'wasm') as BackendPreference);
  const episodes = Number(arg('episodes', '4'));
  const turns = Number(arg('turns', '6'));
  const dir = path.join(os.tmpdir(), 'actorgym-hf-bench-multiturn');
  await writeRandomModel(dir, CONFIG);
  const { model } = await loadHfModel(dir);
  const rng = mulberry32(7);
  const prompts = Array.from({ length: episodes }, () => ids(PROMPT, rng));
  const observations = Array.from({ length: turns - 1 }, () => Array.from({ length: episodes }, () => ids(OBSERVATION, rng)));
  const options = { temperature: 0, topP: 1, maxNewTokens: REPLY };

  // Warm-up, so neither side pays for the backend's first kernels.
  await generate(model, prompts.map((prompt, seed) => ({ prompt, seed })), options);

  // Re-encoding: every turn prefills the whole conversation so far.
  let start = performance.now();
  const conversations = prompts.map((p) => [...p]);
  const reencoded: number[][][] = prompts.map(() => []);
  const reencodedLogProbs: number[] = [];
  let reencodedFed = 0;
  for (let turn = 0; turn < turns; turn++) {
    if (turn > 0) conversations.forEach((c, e) => c.push(...observations[turn - 1]![e]!));
    reencodedFed += conversations.reduce((n, c) => n + c.length, 0) + episodes * (REPLY - 1);
    const out = await generate(model, conversations.map((prompt, seed) => ({ prompt, seed })), options);
    out.forEach((o, e) => {
      reencoded[e]!.push(o.tokens);
      reencodedLogProbs.push(...o.logProbs);
      conversations[e]!.push(...o.tokens);
    });
  }
  const reencodeSeconds = (performance.now() - start) / 1000;

  // Session: each turn reads the previous reply's last token and the observation only.
  start = performance.now();
  const session = new HfDecodingSession(model);
  const ids_ = prompts.map((_, e) => `e${e}`);
  prompts.forEach((p, e) => session.open(ids_[e]!, p, e));
  const cached: number[][][] = prompts.map(() => []);
  const cachedLogProbs: number[] = [];
  let sessionFed = episodes * PROMPT;
  for (let turn = 0; turn < turns; turn++) {
    if (turn > 0) ids_.forEach((id, e) => session.extend(id, observations[turn - 1]![e]!));
    if (turn > 0) sessionFed += episodes * (1 + OBSERVATION);
    sessionFed += episodes * (REPLY - 1);
    const out = await session.decide(ids_, options);
    out.forEach((o, e) => {
      cached[e]!.push(o.tokens);
      cachedLogProbs.push(...o.logProbs);
    });
  }
  const sessionSeconds = (performance.now() - start) / 1000;
  session.dispose();
  model.dispose();

  const identical = JSON.stringify(cached) === JSON.stringify(reencoded);
  const final = conversations[0]!.length;
  console.log(`${backend}: ${episodes} episodes × ${turns} turns (prompt ${PROMPT}, observation ${OBSERVATION}, reply ${REPLY}; ${final} tokens at the end)`);
  console.log(`re-encode every turn: ${reencodeSeconds.toFixed(2)} s, ${reencodedFed} tokens fed`);
  console.log(`session (cached prefix): ${sessionSeconds.toFixed(2)} s, ${sessionFed} tokens fed; ${(reencodeSeconds / sessionSeconds).toFixed(2)}× faster`);
  // Same order on both sides: turn by turn, episode by episode.
  const maxDiff = identical ? Math.max(...cachedLogProbs.map((x, i) => Math.abs(x - reencodedLogProbs[i]!))) : NaN;
  console.log(`greedy replies identical: ${identical}; max |Δ log-prob| ${maxDiff.toExponential(2)}`);
}

await main();
