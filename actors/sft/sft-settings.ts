/**
 * Behaviour cloning's own settings, beside the run configuration (learner/training-config.ts) that fixes
 * the model, tokenizer and context exactly as RL would use them. Saved in config.json and in
 * every SFT checkpoint (`state.config.sft`), so `--resume` can refuse a changed setup.
 */
import { z } from 'zod';
import { TrainingConfigSchema } from '../../learner/training-config-schema.ts';

export const SftSettingsSchema = z.object({
  /** Passes over the training demos; one pass is one "step" in metrics.jsonl and checkpoints. */
  epochs: z.number(),
  /** Adam learning rate. */
  lr: z.number(),
  /** Rows (context windows) per Adam update. */
  minibatch: z.number(),
  /** Share of the demos' tasks held out for the validation loss (0 = none). */
  validationShare: z.number(),
  /** Epochs between test evaluations (0 = only at the end). */
  evalEvery: z.number(),
  /** Test episodes per evaluation ('all' = the whole test split). */
  evalEpisodes: z.union([z.number(), z.literal('all')]),
  /** The demos file(s), and a digest of their content (a resumed run must see the same demos). */
  demos: z.array(z.string()).readonly(),
  demosSha256: z.string(),
});
export type SftSettings = Readonly<z.infer<typeof SftSettingsSchema>>;

/** An SFT checkpoint's `state.config`: the run's config with the SFT settings beside it (absent in an RL checkpoint). */
export const SftCheckpointConfigSchema = TrainingConfigSchema.extend({ sft: SftSettingsSchema.exactOptional() });

export const sftDefaults = { epochs: 20, lr: 1e-3, minibatch: 32, validationShare: 0.1, evalEvery: 5, evalEpisodes: 'all' as const };

export function checkSftSettings(s: SftSettings): SftSettings {
  const int = (name: string, v: number, min: number) => {
    if (!(Number.isInteger(v) && v >= min)) throw new Error(`${name} must be an integer ≥ ${min}, got ${v}`);
  };
  int('epochs', s.epochs, 1);
  int('minibatch', s.minibatch, 1);
  int('evalEvery', s.evalEvery, 0);
  if (s.evalEpisodes !== 'all') int('evalEpisodes', s.evalEpisodes, 0);
  if (!(Number.isFinite(s.lr) && s.lr > 0)) throw new Error(`lr must be a number > 0, got ${s.lr}`);
  if (!(s.validationShare >= 0 && s.validationShare < 1)) throw new Error(`validationShare must be in [0, 1), got ${s.validationShare}`);
  if (s.demos.length === 0) throw new Error('no demos file given');
  return s;
}
