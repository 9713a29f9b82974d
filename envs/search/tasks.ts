/**
 * Task ids and splits. Every question the generator can write is a task; its id names the
 * question kind and the entities (`capital/FRA`). The test split takes a fixed number of each
 * kind (200 in all: 80 one-hop, 70 two-hop, 50 three-hop) from a seeded shuffle of the pool,
 * the train split is the rest, so the two never share an id. Both are fixed for a given
 * version of `world-countries`.
 */
import { EnvError, type Split } from '../contract.ts';
import { Rng } from '../rng.ts';
import { loadFacts } from './facts.ts';
import type { Question, QuestionKind } from './question.ts';
import { multiHopQuestions } from './questions-multi.ts';
import { singleHopQuestions } from './questions-single.ts';

/** Test questions per kind. */
export const TEST_COUNTS: Readonly<Record<QuestionKind, number>> = {
  capital: 16,
  'country-of-capital': 16,
  currency: 16,
  language: 16,
  subregion: 16,
  'capital-currency': 18,
  'capital-language': 17,
  'border-currency-capital': 18,
  'larger-area': 17,
  'capital-border-currency-capital': 20,
  'capital-border-language-currency': 20,
  'capital-border-landlocked-capital': 10,
};

const SPLIT_SEED = 'search/splits/v1';

interface Pool {
  readonly byId: ReadonlyMap<string, Question>;
  readonly splits: Readonly<Record<'train' | 'test', readonly string[]>>;
}

let cached: Pool | undefined;

function pool(): Pool {
  if (cached) return cached;
  const facts = loadFacts();
  const all = [...singleHopQuestions(facts), ...multiHopQuestions(facts)];
  const byId = new Map(all.map((q) => [q.id, q]));
  if (byId.size !== all.length) throw new Error('search: two questions share an id');
  const rng = Rng.fromString(SPLIT_SEED);
  const test: string[] = [];
  const train: string[] = [];
  for (const [kind, count] of Object.entries(TEST_COUNTS)) {
    const ids = rng.shuffle(all.filter((q) => q.kind === kind).map((q) => q.id));
    if (ids.length < count * 2) throw new Error(`search: only ${ids.length} "${kind}" questions for ${count} test items`);
    test.push(...ids.slice(0, count));
    train.push(...ids.slice(count));
  }
  // Interleaved kinds, so the first N tasks of a split are a fair mix.
  cached = { byId, splits: { test: Object.freeze(rng.shuffle(test)), train: Object.freeze(rng.shuffle(train)) } };
  return cached;
}

export function searchTasks(split: Split): readonly string[] {
  if (split === 'test-templates') return []; // Deep Search has no held-out templates
  return pool().splits[split];
}

/** The question of a task id (every generated question is in one split). */
export function questionOf(taskId: string): Question {
  const q = typeof taskId === 'string' ? pool().byId.get(taskId) : undefined;
  if (!q) {
    throw new EnvError('TASK_UNKNOWN', `unknown search task "${String(taskId)}"; expected <kind>/<codes> such as capital/FRA, e.g. one of searchTasks('test')`);
  }
  return q;
}

/** Every generated question (train, test and beyond), for tests and tools. */
export function allQuestions(): readonly Question[] {
  return [...pool().byId.values()];
}
