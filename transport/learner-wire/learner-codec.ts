/** Encoding and decoding of the learner protocol's control frames (learner-schemas.ts). */
import type { RawData } from 'ws';
import { decodeJson, decodeWith, type Decoded } from '../wire/decode.ts';
import {
  LEARNER_OPS,
  LearnerFrameSchema,
  WORKER_OPS,
  WorkerFrameSchema,
  type LearnerErrorCode,
  type LearnerFrame,
  type WorkerFrame,
} from './learner-schemas.ts';

/** Learner side: a worker's text frame, validated (binary frames are refused: workers send none). */
export function decodeWorkerFrame(data: RawData, isBinary: boolean): Decoded<WorkerFrame> {
  const json = decodeJson(data, isBinary);
  return json.ok ? decodeWith(WorkerFrameSchema, WORKER_OPS, json.value) : json;
}

/** Worker side: a learner's text frame, validated (binary frames are weights: weights-frame.ts). */
export function decodeLearnerFrame(data: RawData): Decoded<LearnerFrame> {
  const json = decodeJson(data, false);
  return json.ok ? decodeWith(LearnerFrameSchema, LEARNER_OPS, json.value) : json;
}

/** Any control frame as its text. */
export function encodeFrame(frame: WorkerFrame | LearnerFrame): string {
  return JSON.stringify(frame);
}

/** The learner's `error` frame. */
export function encodeLearnerError(code: LearnerErrorCode, message: string, id?: string): string {
  return JSON.stringify({ op: 'error', code, message, ...(id !== undefined ? { id } : {}) });
}
