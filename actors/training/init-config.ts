/**
 * The configuration of a run that starts from another checkpoint's weights (`train --init DIR`,
 * typically an SFT checkpoint). The policy's shape and what it reads — model size, context,
 * observation filter, hidden actions, action word order — come from the checkpoint, since the
 * weights only mean something under them; giving a different value is an error naming the field.
 * Everything about RL (algorithm, schedule, learning rate, steps, …) is the caller's.
 */
import { CheckpointError } from '../../learner/checkpoint/format.ts';
import { parseSavedConfig, resolveConfig, type TrainingConfig, type TrainingOptionsConfig } from '../../learner/training-config.ts';

/** Fields a run started from a checkpoint inherits from it. */
export const INHERITED = ['model', 'observation', 'historyTurns', 'historyActionsOnly', 'instructionTokens', 'actionWords', 'hiddenActions', 'maxVocab', 'corpusTasks'] as const;

export function initConfig(saved: Readonly<Record<string, unknown>>, env: string, options: TrainingOptionsConfig & { readonly steps: number }, from: string): TrainingConfig {
  // Parsed for its values; which fields the checkpoint has is read from `saved` (one written before a field existed lacks it).
  const config = parseSavedConfig(saved, `${from}/state.json`);
  if (config.env !== env) throw new CheckpointError('CKPT_INCOMPATIBLE', `${from} was trained on env "${config.env}", not "${env}"`);
  const conflicts: string[] = [];
  const inherited: Record<string, unknown> = {};
  for (const key of INHERITED) {
    if (saved[key] === undefined) continue;
    inherited[key] = config[key];
    const given = options[key];
    if (given === undefined) continue;
    // Model overrides compare key by key: a preset may restate some of them.
    const differs = key === 'model'
      ? Object.entries(given as Record<string, unknown>).some(([k, v]) => JSON.stringify(v) !== JSON.stringify((config.model as Record<string, unknown>)[k]))
      : JSON.stringify(given) !== JSON.stringify(config[key]);
    if (differs) conflicts.push(`${key} ${JSON.stringify(given)} (checkpoint: ${JSON.stringify(config[key])})`);
  }
  if (conflicts.length > 0) {
    throw new CheckpointError('CKPT_INCOMPATIBLE', `--init keeps the checkpoint's model and inputs; these differ: ${conflicts.join('; ')}`);
  }
  return { ...resolveConfig(env, { ...options, ...inherited } as TrainingOptionsConfig & { readonly steps: number }), initFrom: from };
}
