/**
 * Step 2 of an SFT run: the policy the demos are laid out by (the run's own observation filter and
 * context), the validation split by task, and the demos as training and validation rows
 * (learner/sft/demo-rows.ts).
 */
import { FilteredPolicy } from '../../policy/observation-filter.ts';
import { TransformerPolicy } from '../../policy/transformer-policy.ts';
import { AllowedTokensBuilder } from '../../learner/allowed-tokens.ts';
import type { RunModels } from '../../learner/run-models.ts';
import { demoRows, type DemoRows } from '../../learner/sft/demo-rows.ts';
import { validationTasks } from '../../learner/sft/validation-split.ts';
import { contextOptions, type TrainingConfig } from '../../learner/training-config.ts';
import type { LoadedDemos } from './load-demos.ts';
import type { SftSummary } from './sft-options.ts';
import type { SftSettings } from './sft-settings.ts';

export interface SftRows {
  /** The policy over the trained model (dispose it at the end). */
  readonly inner: TransformerPolicy;
  readonly train: DemoRows;
  readonly validation: DemoRows;
}

/** Throws when no demo could be turned into a training row. */
export function sftRows(models: RunModels, config: TrainingConfig, settings: SftSettings, demos: LoadedDemos): SftRows {
  const inner = new TransformerPolicy(models.model, models.tokenizer, { temperature: config.temperature, ...contextOptions(config) });
  const policy = new FilteredPolicy(inner, config.observation, { record: true, hide: config.hiddenActions });
  const held = validationTasks(demos.kept.map((d) => d.taskId), settings.validationShare, config.seed);
  const allowed = new AllowedTokensBuilder(inner.actionDecoding);
  const trainDemos = demos.kept.filter((d) => !held.has(d.taskId));
  const valDemos = demos.kept.filter((d) => held.has(d.taskId));
  const train = demoRows(trainDemos, policy, allowed);
  const validation = demoRows(valDemos, policy, allowed);
  if (train.rows.length === 0) {
    const why = train.skipped[0]?.reason ?? 'no demos left after filtering';
    throw new Error(`no demo could be turned into training rows (${trainDemos.length} demos; first problem: ${why})`);
  }
  return { inner, train, validation };
}

/** The demos' line of the summary. */
export function demosSummary(demos: LoadedDemos, rows: SftRows): SftSummary['demos'] {
  const { train, validation: val } = rows;
  return {
    read: demos.all.length, trained: train.used, validation: val.used, skipped: train.skipped.length + val.skipped.length,
    truncatedTurns: train.truncatedTurns + val.truncatedTurns, rows: train.rows.length, agentTokens: train.agentTokens,
  };
}
