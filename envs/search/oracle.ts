/**
 * The Deep Search oracle: it searches, in order, for the article of every fact the question
 * needs (its evidence titles), then answers with the gold answer. It keeps no state of its own
 * — the plan position is the env's step count — so one oracle serves an env slot across
 * episodes. It shows that every question is answerable in `evidence.length + 1` turns.
 */
import type { Oracle } from '../contract.ts';
import type { SearchEnv } from './env.ts';

export class SearchOracle implements Oracle {
  constructor(private readonly env: SearchEnv) {}

  async next(): Promise<string> {
    const { question, steps } = this.env.internalState();
    const title = question.evidence[steps];
    if (title !== undefined) return `<search> ${title} </search>`;
    return `<answer> ${question.answers[0] ?? ''} </answer>`;
  }
}
