/** `algorithms/`' one error type, apart from the tensor code so that checking a name loads no TensorFlow.js. */
export type AlgorithmErrorCode =
  | 'ALGO_BAD_BATCH' // shapes or mask values do not fit the layout (batch.ts)
  | 'ALGO_MISSING_INPUT' // an estimator needs a field the batch does not carry (values, log-probs)
  | 'ALGO_RLOO_SINGLETON_GROUP' // RLOO with singletonGroup: 'error' met a group of one
  | 'ALGO_UNKNOWN'; // estimateAdvantages got an algorithm name it does not know

/** The one error type thrown by `algorithms/`, keyed by a literal `code`. */
export class AlgorithmError extends Error {
  override readonly name = 'AlgorithmError';
  constructor(
    readonly code: AlgorithmErrorCode,
    message: string,
  ) {
    super(message);
  }
}
