/** The learner protocol: control frames, the weights frame and their limits (docs/distributed-training.md). */
export { decodeLearnerFrame, decodeWorkerFrame, encodeFrame, encodeLearnerError } from './learner-codec.ts';
export {
  AssignFrameSchema,
  LEARNER_ERROR_CODES,
  LearnerFrameSchema,
  RunSpecSchema,
  WelcomeFrameSchema,
  WorkerFrameSchema,
  type AssignFrame,
  type HelloFrame,
  type LearnerErrorCode,
  type LearnerErrorFrame,
  type LearnerFrame,
  type RunSpec,
  type WelcomeFrame,
  type WorkerFrame,
} from './learner-schemas.ts';
export { decodeWeightsFrame, encodeWeightsFrame, WeightsFrameError, type WeightsFrameErrorCode, type WeightsPayload } from './weights-frame.ts';
export {
  LEARNER_HELLO_TIMEOUT_MS,
  LEARNER_MAX_BUFFERED_BYTES,
  LEARNER_MAX_GROUP_ATTEMPTS,
  LEARNER_PROTOCOL,
  LEARNER_SERVER_MAX_PAYLOAD,
  WORKER_MAX_PAYLOAD,
  WORKER_RECONNECT_BACKOFF,
} from './limits.ts';
