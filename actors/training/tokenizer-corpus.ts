/**
 * The tokenizer of a fresh run, built from the env's own text: the observations and actions of
 * oracle and random rollouts on a sample of TRAIN tasks (never test), plus every available-action
 * string those episodes listed. The oracle shows the text of progress (goals reached, doors
 * opened), the random agent the text of mistakes (invalid-action messages). Deterministic in the
 * run seed, so a run with the same seed builds the same vocabulary.
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import { deriveSeed } from '../../machines/seed.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { createRolloutSystem } from '../rollout-system.ts';
import { stepEnv } from './collect.ts';
import { tasksForStep } from '../../learner/task-sampler.ts';

export interface CorpusOptions {
  readonly seed: number;
  readonly tasks: number;
  readonly maxVocab: number;
  readonly concurrency?: number;
}

/** Step index 0 is never a learner step, so the corpus sample is its own draw. */
const CORPUS_STEP = 0;

export async function buildTokenizer(env: EnvDefinition, options: CorpusOptions): Promise<Tokenizer> {
  const tasks = tasksForStep(env.tasks('train'), options.tasks, options.seed, CORPUS_STEP);
  const texts: string[] = [];
  const agents = env.oracle ? (['oracle', 'random'] as const) : (['random'] as const);
  for (const agent of agents) {
    await createRolloutSystem({
      env: stepEnv(env, tasks),
      agent,
      split: 'train',
      episodes: tasks.length,
      concurrency: options.concurrency ?? 16,
      seed: deriveSeed(options.seed, CORPUS_STEP, agent === 'oracle' ? 1 : 2),
      runId: `corpus-${agent}`,
      onEpisode: (output) => {
        texts.push(output.firstObservation);
        for (const turn of output.trajectory) texts.push(turn.action, turn.observation);
      },
    }).run();
  }
  // Action strings once more on their own, so their words win a slot even when rare in prose.
  const actions = new Set<string>();
  for (const text of texts) {
    const list = /Available actions: \[([^\n]*)\]/.exec(text)?.[1];
    if (list) for (const m of list.matchAll(/"([^"]*)"/g)) actions.add(m[1]!);
  }
  return Tokenizer.fromCorpus([...texts, ...actions], { maxVocab: options.maxVocab, minCount: 2 });
}
