/**
 * The tokenizer of a fresh run, built from text the env writes on its own, with no agent choosing
 * anything (issue 35): on a sample of TRAIN tasks (never test), the first observation, the env's
 * answer to each action it lists there, and to each action it lists after that one (two levels
 * deep, at most `actionsPerTask` per state, in the env's own order, each path replayed from a
 * fresh reset), plus every available-action string seen.
 *
 * Why not rollouts of an oracle or a random agent (as before): then a change to how a
 * demonstrator plans re-drew the vocabulary, and with it every RL-from-scratch result (`npm start`
 * moved 60.0 → 62.2 → 53.3 % over BabyAI commits that touched only the oracle). Now the vocabulary
 * changes only when the env's own text, the task sample (run seed, `corpusTasks`) or `maxVocab`
 * changes — see docs/training-babyai.md, "What changes the vocabulary". Post-episode text (the
 * message on success) is never read by the policy, so two steps from the start cover what it reads:
 * the instruction, the views, what is said while carrying something, and the env's answers to
 * moves that change nothing.
 *
 * Deterministic in the run seed; tests/actors/training-preset-pin.test.ts pins BabyAI's at seed 0.
 */
import type { Env, EnvDefinition, StepInfo } from '../../envs/contract.ts';
import { deriveSeed } from '../../machines/seed.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { tasksForStep } from '../../learner/task-sampler.ts';

export interface CorpusOptions {
  readonly seed: number;
  readonly tasks: number;
  readonly maxVocab: number;
  /**
   * How many listed actions are tried at each level from a task's start: default [32, 8], every
   * first move (up to 32) and the first 8 moves after each, which is what carrying an object reads.
   * Bounds the cost for envs that list hundreds of actions.
   */
  readonly breadth?: readonly number[];
}

/** Step index 0 is never a learner step, so the corpus sample is its own draw. */
const CORPUS_STEP = 0;
const DEFAULT_BREADTH = [32, 8] as const;

export async function buildTokenizer(env: EnvDefinition, options: CorpusOptions): Promise<Tokenizer> {
  const { texts, actions } = await envCorpus(env, options);
  // Action strings once more on their own, so their words win a slot even when rare in prose.
  return Tokenizer.fromCorpus([...texts, ...actions], { maxVocab: options.maxVocab, minCount: 2 });
}

/** The corpus texts and the distinct action strings, in a deterministic order. */
export async function envCorpus(env: EnvDefinition, options: CorpusOptions): Promise<{ texts: string[]; actions: string[] }> {
  const tasks = tasksForStep(env.tasks('train'), options.tasks, options.seed, CORPUS_STEP);
  const breadth = options.breadth ?? DEFAULT_BREADTH;
  const texts: string[] = [];
  const actions = new Set<string>();
  const noteActions = (observation: string, info: StepInfo) => {
    for (const a of info.availableActions ?? listedInText(observation)) actions.add(a);
  };
  const instance = env.make();
  try {
    for (const [index, taskId] of tasks.entries()) {
      const reset = { taskId, seed: deriveSeed(options.seed, CORPUS_STEP, index) };
      const first = await instance.reset(reset);
      // Twice: the policy reads the first observation (the instruction) at every turn, and a word
      // of one sampled task's instruction should not be spelled out for appearing once.
      texts.push(first.observation, first.observation);
      noteActions(first.observation, first.info);
      await explore(instance, reset, [], first, breadth, (action, answer) => {
        texts.push(action, answer.observation);
        noteActions(answer.observation, answer.info);
      });
    }
  } finally {
    await instance.close();
  }
  return { texts, actions: [...actions] };
}

type Answer = { readonly observation: string; readonly info: StepInfo };

/** Steps each listed action (at most `breadth[0]`) from `state`, reached by `path` from a fresh reset, and on below. */
async function explore(
  env: Env,
  reset: { taskId: string; seed: number },
  path: readonly string[],
  state: Answer,
  breadth: readonly number[],
  onAnswer: (action: string, answer: Answer) => void,
): Promise<void> {
  const [limit, ...below] = breadth;
  if (limit === undefined) return;
  for (const action of (state.info.availableActions ?? listedInText(state.observation)).slice(0, limit)) {
    await env.reset(reset);
    let over = false;
    for (const earlier of path) over = isOver(await env.step(earlier));
    if (over) return;
    const answer = await env.step(action);
    onAnswer(action, answer);
    if (!isOver(answer)) await explore(env, reset, [...path, action], answer, below, onAnswer);
  }
}

function isOver(result: { terminated?: boolean; truncated?: boolean }): boolean {
  return result.terminated === true || result.truncated === true;
}

/** Envs that list their actions only in the observation text (`Available actions: ["…", …]`). */
function listedInText(text: string): string[] {
  const list = /Available actions: \[([^\n]*)\]/.exec(text)?.[1];
  return list ? [...list.matchAll(/"([^"]*)"/g)].map((m) => m[1]!) : [];
}
