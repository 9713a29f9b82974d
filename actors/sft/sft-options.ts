/** The SFT system's options, summary and handle (actors/sft-system.ts), and the settings they resolve to. */
import type { Observable } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import type { BackendPreference } from '../../policy/backend-preference.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { HF_DEFAULT_LR, resolveConfig, type TrainingConfig, type TrainingOptionsConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import { checkSftSettings, sftDefaults, type SftSettings } from './sft-settings.ts';

/** Options of `createSftSystem`: the env, demo files, epochs and learning settings, the run directory, resume, backend and threads. */
export interface SftOptions extends Omit<TrainingOptionsConfig, 'steps' | 'epochs' | 'lr' | 'minibatch' | 'evalEpisodes'> {
  readonly env: EnvDefinition | string;
  /** Demo files (ours or AgentTraj, demos); several are concatenated. */
  readonly demos: readonly string[];
  readonly epochs?: number;
  readonly lr?: number;
  readonly minibatch?: number;
  readonly validationShare?: number;
  readonly evalEvery?: number;
  readonly evalEpisodes?: number | 'all';
  /** Keep only successful demos (default true: cloning failures teaches failing). */
  readonly onlySuccess?: boolean;
  readonly out?: string;
  /** An SFT run or checkpoint directory to continue from, at its next epoch. */
  readonly resume?: string;
  readonly backend?: BackendPreference;
  readonly learnerThreads?: number;
  /** Stop (with a checkpoint and a test evaluation) after the epoch that passes this many minutes. */
  readonly maxMinutes?: number;
  readonly clock?: RunClock;
}

/** What an SFT run ends with: its status and epochs, the demos it read and trained on, train and validation loss, and the paths of its checkpoint and metrics. */
export interface SftSummary {
  readonly status: 'done' | 'stopped';
  readonly env: string;
  readonly epochs: number;
  readonly fromEpoch: number;
  readonly backend: string;
  readonly out: string | undefined;
  readonly checkpoint: string | undefined;
  readonly metricsFile: string | undefined;
  readonly demos: { readonly read: number; readonly trained: number; readonly validation: number; readonly skipped: number; readonly truncatedTurns: number; readonly rows: number; readonly agentTokens: number };
  readonly trainLoss: number | undefined;
  readonly valLoss: number | undefined;
  readonly trainSeconds: number;
  readonly testSuccessRate: number | undefined;
  readonly testMeanReward: number | undefined;
  readonly evaluation: Omit<RolloutSummary, 'results'> | undefined;
  readonly config: TrainingConfig;
  readonly sft: SftSettings;
}

/** An SFT system: its `events`, `run()` for the summary, and `stop()`. */
export interface SftSystem {
  readonly events: Observable<TrainingEvent>;
  run(): Promise<SftSummary>;
  /** Stops at the next update; the last finished epoch's checkpoint is what remains. */
  stop(reason?: string): void;
}

/** The SFT settings but the demos' digest (known once they are read), checked. */
export type SftSettingsWithoutDigest = Omit<SftSettings, 'demosSha256'>;

export function sftSettingsOf(options: SftOptions): SftSettingsWithoutDigest {
  const settings = {
    epochs: options.epochs ?? sftDefaults.epochs,
    lr: options.lr ?? (options.hf ? HF_DEFAULT_LR : sftDefaults.lr),
    minibatch: options.minibatch ?? sftDefaults.minibatch,
    validationShare: options.validationShare ?? sftDefaults.validationShare,
    evalEvery: options.evalEvery ?? sftDefaults.evalEvery,
    evalEpisodes: options.evalEpisodes ?? sftDefaults.evalEpisodes,
    demos: options.demos,
  };
  checkSftSettings({ ...settings, demosSha256: '' });
  return settings;
}

/** The model, context and tokenizer settings, as a training run would resolve them. */
export function sftConfigOf(env: EnvDefinition, options: SftOptions, settings: SftSettingsWithoutDigest): TrainingConfig {
  const { env: _e, demos: _d, epochs: _ep, lr: _lr, minibatch: _mb, validationShare: _vs, evalEvery: _ee, evalEpisodes: _ev, onlySuccess: _os,
    out: _o, resume: _r, backend: _b, learnerThreads: _t, maxMinutes: _m, clock: _c, ...modelOptions } = options;
  return resolveConfig(env.spec.id, {
    ...modelOptions, steps: settings.epochs, lr: settings.lr, minibatch: settings.minibatch,
    ...(settings.evalEpisodes !== 'all' ? { evalEpisodes: settings.evalEpisodes } : {}),
  });
}
