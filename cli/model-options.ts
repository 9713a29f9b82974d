/**
 * The options that fix the policy a run trains — model size, context and what it reads — shared
 * by `train` and `sft`, so an SFT checkpoint and the RL run after it are described the same way.
 */
import { Option, type Command } from 'commander';
import type { TrainingOptionsConfig } from '../learner/training-config.ts';
import { ACTION_WORD_ORDERS, type ActionWordOrder } from '../policy/action-words.ts';
import { OBSERVATION_FILTERS, type ObservationFilter } from '../policy/observation-filter.ts';
import { nonNegativeInt, positiveInt } from './output.ts';

export interface ModelCliOptions {
  observation?: ObservationFilter;
  historyTurns?: number;
  historyActionsOnly?: boolean;
  actionWords?: ActionWordOrder;
  instructionTokens?: number;
  dModel?: number;
  layers?: number;
  heads?: number;
  ff?: number;
  context?: number;
  tiedEmbeddings?: boolean;
  instructionCopy?: boolean;
  copyWordForms?: boolean;
  relabel?: boolean;
  hideAction?: string[];
}

export function addModelOptions(command: Command): Command {
  return command
    .addOption(new Option('--observation <filter>', 'what the model reads of an observation (default no-action-list)').choices(OBSERVATION_FILTERS as unknown as string[]))
    .option('--history-turns <n>', 'past turns the policy reads, 0 = instruction and current observation only (default: as many as fit)', nonNegativeInt('--history-turns'))
    .option('--history-actions-only', 'past turns keep only their action, not their observation (needs --history-turns)')
    .addOption(new Option('--action-words <order>', 'order the policy decodes an action\'s words in: reversed chooses the object before the verb (default as-written)').choices(ACTION_WORD_ORDERS as unknown as string[]))
    .option('--instruction-tokens <n>', 'tokens of the first observation kept as the instruction (default: half the context)', positiveInt('--instruction-tokens'))
    .option('--d-model <n>', 'transformer width (default 128)', positiveInt('--d-model'))
    .option('--layers <n>', 'transformer layers (default 2)', positiveInt('--layers'))
    .option('--heads <n>', 'attention heads (default 4)', positiveInt('--heads'))
    .option('--ff <n>', 'feed-forward width (default 512)', positiveInt('--ff'))
    .option('--context <n>', 'context window in tokens (default 256)', positiveInt('--context'))
    .option('--tied-embeddings', 'tie the output head to the token embedding (GPT-2 style)')
    .option('--no-tied-embeddings', 'a separate output head')
    .option('--instruction-copy', 'a learned gate raises the logits of the instruction\'s words (a bag-of-words copy head)')
    .option('--no-instruction-copy', 'no copy gate')
    .option('--copy-word-forms', 'the copy also raises the other forms of the instruction\'s words ("go"/" go", "pick up" → "pickup"); needs --instruction-copy')
    .option('--no-copy-word-forms', 'the copy raises the instruction\'s tokens only')
    .option('--relabel', 'permute the env\'s interchangeable words (BabyAI: colours) at random in each training episode, so no label carries a prior')
    .option('--no-relabel', 'train on the env\'s own words')
    .option('--hide-action <action>', 'take an action out of the policy\'s choices, e.g. "check available actions" (repeatable)', (a: string, all: string[] = []) => [...all, a]);
}

/** The model and context settings given on the command line (defaults are left to the config). */
export function givenModelConfig(command: Command, o: ModelCliOptions): TrainingOptionsConfig {
  const given = (key: keyof ModelCliOptions): boolean => command.getOptionValueSource(key) === 'cli';
  const pick = <K extends keyof ModelCliOptions>(key: K): Partial<Record<K, ModelCliOptions[K]>> =>
    given(key) ? ({ [key]: o[key] } as Partial<Record<K, ModelCliOptions[K]>>) : {};
  const model = {
    ...(given('dModel') ? { dModel: o.dModel } : {}),
    ...(given('layers') ? { nLayers: o.layers } : {}),
    ...(given('heads') ? { nHeads: o.heads } : {}),
    ...(given('ff') ? { dFF: o.ff } : {}),
    ...(given('context') ? { maxContext: o.context } : {}),
    ...(given('tiedEmbeddings') ? { tiedEmbeddings: o.tiedEmbeddings } : {}),
    ...(given('instructionCopy') ? { instructionCopy: o.instructionCopy } : {}),
    ...(given('copyWordForms') ? { copyWordForms: o.copyWordForms } : {}),
  };
  return {
    ...pick('observation'), ...pick('historyTurns'), ...pick('historyActionsOnly'), ...pick('actionWords'), ...pick('instructionTokens'), ...pick('relabel'),
    ...(given('hideAction') ? { hiddenActions: o.hideAction } : {}),
    ...(Object.keys(model).length > 0 ? { model } : {}),
  } as TrainingOptionsConfig;
}
