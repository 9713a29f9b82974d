/**
 * The advantage estimators' names, apart from algorithms/index.ts so that `actorgym train --help`
 * can list them without loading TensorFlow.js.
 */
import { AlgorithmError } from './algorithm-error.ts';

/** The advantage estimators, by the name `actorgym train --algo` takes. */
export const ALGORITHMS = ['grpo', 'ppo', 'reinforce++', 'rloo'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export function isAlgorithm(name: string): name is Algorithm {
  return (ALGORITHMS as readonly string[]).includes(name);
}

/** `name` as an {@link Algorithm}, or an `ALGO_UNKNOWN` error naming the known ones. */
export function parseAlgorithm(name: string): Algorithm {
  if (isAlgorithm(name)) return name;
  const known = ALGORITHMS.join(', ');
  throw new AlgorithmError('ALGO_UNKNOWN', `unknown algorithm ${JSON.stringify(name)}; known: ${known}`);
}
