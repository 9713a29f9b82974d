/**
 * The run a learner describes in its `welcome` (transport/learner-wire RunSpec) and how a worker
 * reads it back: the explicit fields any client needs, and the whole training config, parsed
 * with the learner's own schema so a worker of another actorgym version fails on the field that
 * differs instead of sampling with a policy built differently.
 */
import type { TrainingConfig } from '../../learner/training-config.ts';
import { parseSavedConfig } from '../../learner/training-config-schema.ts';
import type { TokenizerJSON } from '../../policy/tokenizer.ts';
import type { RunSpec } from '../../transport/learner-wire/learner-schemas.ts';

/** The learner side: the welcome's run for `config` (our transformer's tokenizer with it; none for a Hugging Face model). */
export function runSpecOf(config: TrainingConfig, tokenizer: TokenizerJSON | undefined): RunSpec {
  return {
    env: config.env, seed: config.seed, tasksPerStep: config.tasksPerStep, groupSize: config.groupSize,
    concurrency: config.concurrency, temperature: config.temperature,
    config: JSON.parse(JSON.stringify(config)) as Record<string, unknown>,
    ...(tokenizer !== undefined ? { tokenizer } : {}),
  };
}

/** The worker side: the run's training config; an error names the field that does not parse. */
export function configOfRun(run: RunSpec): TrainingConfig {
  return parseSavedConfig(run.config, "the learner's welcome (run.config)");
}
