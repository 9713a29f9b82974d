/**
 * Demonstrations → training rows for a Hugging Face model: each demo becomes the conversation its
 * agent would have held (policy/hf/agent/ `encodeEpisode`: the env's prompt through the model's
 * chat template, each demonstrated action written as the reply the prompt asks for, with an empty
 * thought: `demoTurns`), with mask 1
 * on the reply tokens. The same ids the agent keeps when it samples those replies, so SFT trains
 * the very positions RL later trains. A demo longer than the context window is skipped, counted.
 */
import { promptOf, type EnvDefinition } from '../../envs/contract.ts';
import { demoTurns, encodeEpisode } from '../../policy/hf/agent/index.ts';
import type { HfTokenizer } from '../../policy/hf/tokenizer/index.ts';
import type { SftRow } from '../../learner/sft/demo-rows.ts';
import { validationTasks } from '../../learner/sft/validation-split.ts';
import type { LoadedDemos } from './load-demos.ts';
import type { SftSummary } from './sft-options.ts';
import type { SftSettings } from './sft-settings.ts';

interface HfDemoRows {
  readonly rows: SftRow[];
  used: number;
  readonly skipped: { readonly demo: number; readonly reason: string }[];
  agentTokens: number;
}

function rowsOf(demos: readonly LoadedDemos['kept'][number][], tokenizer: HfTokenizer, env: EnvDefinition, contextWindow: number): HfDemoRows {
  const prompt = promptOf(env);
  const out: HfDemoRows = { rows: [], used: 0, skipped: [], agentTokens: 0 };
  demos.forEach((demo, index) => {
    if (demo.turns.length === 0) {
      out.skipped.push({ demo: index, reason: 'no turn' });
      return;
    }
    const { tokens, mask } = encodeEpisode(tokenizer, prompt, demoTurns(demo, prompt));
    if (tokens.length > contextWindow) {
      out.skipped.push({ demo: index, reason: `${tokens.length} tokens, past the context window of ${contextWindow}` });
      return;
    }
    out.rows.push({ tokens, mask, demo: index });
    out.used += 1;
    out.agentTokens += mask.reduce((a: number, m: number) => a + m, 0);
  });
  return out;
}

export interface HfSftRows {
  readonly train: HfDemoRows;
  readonly validation: HfDemoRows;
  readonly summary: SftSummary['demos'];
}

export function hfSftRows(demos: LoadedDemos, tokenizer: HfTokenizer, env: EnvDefinition, settings: SftSettings, seed: number, contextWindow: number): HfSftRows {
  const held = validationTasks(demos.kept.map((d) => d.taskId), settings.validationShare, seed);
  const train = rowsOf(demos.kept.filter((d) => !held.has(d.taskId)), tokenizer, env, contextWindow);
  const validation = rowsOf(demos.kept.filter((d) => held.has(d.taskId)), tokenizer, env, contextWindow);
  if (train.rows.length === 0) {
    throw new Error(`no demo could be turned into training rows (first problem: ${train.skipped[0]?.reason ?? 'no demos left after filtering'})`);
  }
  return {
    train, validation,
    summary: {
      read: demos.all.length, trained: train.used, validation: validation.used, skipped: train.skipped.length + validation.skipped.length,
      truncatedTurns: 0, rows: train.rows.length, agentTokens: train.agentTokens,
    },
  };
}
