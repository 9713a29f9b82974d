/** Shared by the HfPolicy tests: the chat fixtures, a BabyAI prompt, and a model forced to say planned ids. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import type { PromptTemplate } from '../../../../envs/contract.ts';
import { promptFor } from '../../../../envs/prompt/prompt-for.ts';
import type { KvPair } from '../../../../policy/hf/attention.ts';
import { HfCausalLm, type ForwardBatch, type ForwardResult } from '../../../../policy/hf/causal-lm.ts';
import type { ConversationTurn } from '../../../../policy/hf/agent/index.ts';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/hf');
/** The tiny models paired with the tiny tokenizer (make-chat-fixtures.ts). */
export const CHAT_MODELS = ['qwen2-tiny-chat', 'qwen3-tiny-chat'] as const;
export const chatDir = (name: string): string => path.join(FIXTURES, name);

export const babyai = (): PromptTemplate => promptFor('babyai');

/** Three BabyAI-like turns: a good reply, one that names no action, one that names two; with an action list on the second. */
export const TURNS: readonly ConversationTurn[] = [
  { observation: 'Your goal: go to the red ball\nIn front of you in this room, you can see several objects: There is a red ball 1 2 steps in front of you.', reply: 'Thought: the ball is ahead.\nAction: move forward' },
  { observation: 'In front of you in this room, you can see several objects: There is a red ball 1 1 steps in front of you.', availableActions: ['turn left', 'turn right', 'move forward'], reply: 'I am not sure what to do here.' },
  { observation: 'You are facing a wall 1 steps away. You are not carrying anything. ünïcode ✓', reply: 'Thought: done\nAction: go to red ball 1' },
];

/**
 * The real model's keys and values, but logits that put all mass on `planned[position + 1]`: the
 * policy then samples exactly the planned ids (batch of one episode).
 */
export class ForcedLm extends HfCausalLm {
  constructor(
    base: HfCausalLm,
    private readonly planned: readonly number[],
  ) {
    super(base.config, base.weights);
  }

  override forward(input: ForwardBatch, past?: readonly KvPair[], logits: 'all' | 'last' = 'all'): ForwardResult {
    const result = super.forward(input, past, logits);
    if (logits !== 'last' || input.batch !== 1) return result;
    result.logits.dispose();
    const position = input.positions[input.length - 1]!;
    const target = this.planned[position + 1] ?? 0;
    const row = new Float32Array(this.config.vocabSize).fill(-1e4);
    row[target] = 0;
    return { logits: tf.tensor3d(row, [1, 1, this.config.vocabSize]), kv: result.kv };
  }
}
