/**
 * Deep Search (AgentGym's `agentenv-searchqa`): questions answered with a search tool. Here the
 * tool is a local BM25 engine over encyclopedia-style articles written from `world-countries`
 * (or an external Search-R1 retriever), and the questions are generated 1- to 3-hop questions
 * about those facts. Exports the registry definition and the pieces tests and tools use.
 */
import { EnvError, type EnvDefinition, type EnvSpec } from '../contract.ts';
import { searchPrompt } from './prompt.ts';
import { searchCategoryOf } from './categories.ts';
import { SearchEnv, type SearchEnvOptions } from './env.ts';
import { SearchOracle } from './oracle.ts';
import { searchTasks } from './tasks.ts';

export const searchSpec: EnvSpec = {
  id: 'search',
  description: 'Deep Search: multi-hop questions with a <search> tool over a world-countries corpus (BM25), as AgentGym SearchQA',
  // The last stage of AgentGym-RL's Deep Search schedule [5, 8, 10]; its fixed-horizon runs used 10 too.
  defaultHorizon: 10,
  // Getters: the question pool (~0.1 s) is built on first use, not when the registry loads.
  splits: {
    get train() {
      return searchTasks('train').length;
    },
    get test() {
      return searchTasks('test').length;
    },
  },
  maxReward: 1,
};

/**
 * A definition whose envs use the given retriever options. The registered `searchDefinition`
 * uses the defaults: `ACTORGYM_SEARCH_RETRIEVER_URL` when set, else the local BM25 engine.
 */
export function createSearchDefinition(options: SearchEnvOptions = {}): EnvDefinition {
  return {
    spec: searchSpec,
    tasks: searchTasks,
    make: () => new SearchEnv(searchSpec, options),
    categoryOf: searchCategoryOf,
    prompt: searchPrompt,
    oracle(env) {
      if (!(env instanceof SearchEnv)) {
        throw new EnvError('ENV_INTERNAL', 'the search oracle needs a local SearchEnv made by searchDefinition.make()');
      }
      return new SearchOracle(env);
    },
  };
}

export const searchDefinition: EnvDefinition = createSearchDefinition();

export { SearchEnv, type SearchEnvOptions } from './env.ts';
export { SearchOracle } from './oracle.ts';
export { searchCategoryOf, HOPS_OF_KIND } from './categories.ts';
export { searchTasks, questionOf, allQuestions, TEST_COUNTS } from './tasks.ts';
export type { Question, QuestionKind } from './question.ts';
export { normalizeAnswer, exactMatch } from './normalize.ts';
export { parseAction, promptFor, passagesToString, informationBlock, CORRECT_MESSAGE, INCORRECT_MESSAGE, INVALID_MESSAGE, type Passage } from './grammar.ts';
export { chooseRetriever, TOP_K, RETRIEVER_URL_ENV, RETRIEVER_TIMEOUT_ENV, DEFAULT_RETRIEVER_TIMEOUT_MS, type Retriever, type RetrieverChoice } from './retriever.ts';
export { Bm25Retriever, BM25_PARAMS, MAX_QUERY_CHARS } from './bm25-retriever.ts';
export { HttpRetriever, MAX_REPLY_BYTES } from './http-retriever.ts';
export { corpus, contentsOf, type Document } from './corpus.ts';
