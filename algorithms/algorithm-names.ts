/**
 * The advantage estimators' names, apart from algorithms/index.ts so that `actorgym train --help`
 * can list them without loading TensorFlow.js.
 */

/** The advantage estimators, by the name `actorgym train --algo` takes. */
export const ALGORITHMS = ['grpo', 'ppo', 'reinforce++', 'rloo'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];
