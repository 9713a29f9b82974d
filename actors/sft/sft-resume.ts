/** The configuration a resumed SFT run continues with, after checking it may: same env, demos and settings. */
import type { EnvDefinition } from '../../envs/contract.ts';
import { CheckpointError } from '../../learner/checkpoint/format.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { SftSettings } from './sft-settings.ts';

/** What a resumed run must keep of the SFT settings: all but the epoch target and the files' paths (the digest compares the demos). */
const resumeKey = ({ epochs: _epochs, demos: _demos, ...rest }: SftSettings): string => JSON.stringify(rest);

export function resumedSftConfig(saved: TrainingConfig & { sft?: SftSettings }, dir: string, env: EnvDefinition, settings: SftSettings): TrainingConfig {
  if (saved.sft === undefined) throw new CheckpointError('CKPT_INCOMPATIBLE', `${dir} is not an SFT checkpoint (resume RL runs with \`train --resume\`)`);
  if (saved.env !== env.spec.id) throw new CheckpointError('CKPT_INCOMPATIBLE', `the checkpoint cloned env "${saved.env}", not "${env.spec.id}"`);
  if (saved.sft.demosSha256 !== settings.demosSha256) throw new CheckpointError('CKPT_INCOMPATIBLE', 'the demos differ from the ones the checkpoint was trained on (sha256 of the demos read)');
  if (resumeKey(saved.sft) !== resumeKey(settings)) throw new CheckpointError('CKPT_INCOMPATIBLE', `SFT settings differ from the checkpoint's: ${resumeKey(settings)} vs ${resumeKey(saved.sft)} (only --epochs may change)`);
  const { sft: _s, ...savedConfig } = saved;
  return { ...savedConfig, steps: settings.epochs };
}
