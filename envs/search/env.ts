/**
 * Deep Search behind the actorgym contract, speaking AgentGym's SearchQA text: reset gives the
 * prompt with the question; `<search> q </search>` answers with the top-3 passages in an
 * `<information>` block; `<answer> a </answer>` is scored by SQuAD exact match against the gold
 * answers — correct ends the episode with reward 1, wrong gives 0 and the episode goes on;
 * anything else gets AgentGym's invalid-action message. The env never truncates: the horizon
 * (maxTurns) is the episode machine's.
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type StepInfo, type StepResult } from '../contract.ts';
import { CORRECT_MESSAGE, INCORRECT_MESSAGE, INVALID_MESSAGE, informationBlock, parseAction, promptFor } from './grammar.ts';
import { exactMatch } from './normalize.ts';
import type { Question } from './question.ts';
import { chooseRetriever, TOP_K, type Retriever, type RetrieverChoice } from './retriever.ts';
import { questionOf } from './tasks.ts';

export type SearchEnvOptions = RetrieverChoice;

export class SearchEnv implements Env {
  readonly retriever: Retriever;
  private question: Question | null = null;
  private steps = 0;
  private over = false;
  private closed = false;

  constructor(
    readonly spec: EnvSpec,
    options: SearchEnvOptions = {},
  ) {
    this.retriever = chooseRetriever(options);
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.assertOpen();
    // Questions have no randomness: the task id fixes everything and the seed is only accepted.
    const question = questionOf(options.taskId);
    this.question = question;
    this.steps = 0;
    this.over = false;
    return { observation: promptFor(question.text), info: { hops: question.hops, kind: question.kind } };
  }

  async step(action: string): Promise<StepResult> {
    const question = this.current();
    if (this.over) throw new EnvError('ENV_NOT_RESET', 'the episode is over; call reset() first');
    if (typeof action !== 'string') throw new EnvError('PROTOCOL_ERROR', `a search action must be a string, got ${typeof action}`);
    const parsed = parseAction(action);
    let result: StepResult;
    if (parsed.kind === 'search') {
      // A retriever failure throws before the step counts, so a retried step sees the same state.
      const passages = await this.retriever.retrieve(parsed.query, TOP_K);
      result = this.result(informationBlock(passages), 0, false, 'search');
    } else if (parsed.kind === 'answer') {
      const correct = exactMatch(parsed.answer, question.answers);
      result = correct ? this.result(CORRECT_MESSAGE, 1, true, 'answer') : this.result(INCORRECT_MESSAGE, 0, false, 'answer');
    } else {
      result = this.result(INVALID_MESSAGE, 0, false, 'invalid');
    }
    this.steps += 1;
    this.over = result.terminated;
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.question = null;
  }

  /** The running question and the steps taken in this episode, for the oracle (same process only). */
  internalState(): { readonly question: Question; readonly steps: number } {
    return { question: this.current(), steps: this.steps };
  }

  private result(observation: string, reward: number, terminated: boolean, action: 'search' | 'answer' | 'invalid'): StepResult {
    const info: StepInfo = { action, invalidAction: action === 'invalid', success: terminated };
    return { observation, reward, terminated, truncated: false, info };
  }

  private current(): Question {
    this.assertOpen();
    if (!this.question) throw new EnvError('ENV_NOT_RESET', 'call reset() before step()');
    return this.question;
  }

  private assertOpen(): void {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'the env is closed');
  }
}
