/**
 * zod schemas of the env protocol's frames (docs/protocol.md#env-protocol). Requests are one
 * discriminated union on `op`, so the server validates a frame with exactly one parse; each
 * response schema is specific to the op of the request it answers, so the client does too.
 */
import { z } from 'zod';
import type { EnvSpec, JsonValue, ResetResult, StepInfo, StepResult } from '../../envs/contract.ts';
import { WIRE_ERROR_CODES, type WireErrorCode } from './errors.ts';

/** Request ids are chosen by the client: a non-negative integer or a short string. */
export const RequestIdSchema = z.union([z.int().min(0), z.string().min(1).max(64)]);
export type RequestId = z.infer<typeof RequestIdSchema>;

const envId = z.string().min(1).max(128);
const instance = z.string().min(1).max(64);

export const EnvRequestSchema = z.discriminatedUnion('op', [
  z.object({ id: RequestIdSchema, op: z.literal('spec'), env: envId }),
  z.object({ id: RequestIdSchema, op: z.literal('tasks'), env: envId, split: z.enum(['train', 'test', 'test-templates']) }),
  z.object({ id: RequestIdSchema, op: z.literal('create'), env: envId }),
  z.object({
    id: RequestIdSchema,
    op: z.literal('reset'),
    instance,
    taskId: z.string().min(1).max(4096),
    seed: z.int().exactOptional(),
  }),
  z.object({ id: RequestIdSchema, op: z.literal('step'), instance, action: z.string() }),
  z.object({ id: RequestIdSchema, op: z.literal('close'), instance }),
  z.object({ id: RequestIdSchema, op: z.literal('oracle'), instance }),
]);
export type EnvRequest = z.infer<typeof EnvRequestSchema>;
export type EnvOp = EnvRequest['op'];
export const ENV_OPS: ReadonlySet<string> = new Set<EnvOp>(['spec', 'tasks', 'create', 'reset', 'step', 'close', 'oracle']);

// Known info fields are checked; other fields pass through untouched: they came from JSON.parse,
// so they are JSON values by construction and are not walked again on every step.
const fromJson = z.custom<JsonValue>();
const StepInfoSchema: z.ZodType<StepInfo> = z
  .object({
    availableActions: z.array(z.string()).exactOptional(),
    score: z.number().exactOptional(),
    invalidAction: z.boolean().exactOptional(),
    success: z.boolean().exactOptional(),
  })
  .catchall(fromJson);

export const EnvSpecSchema: z.ZodType<EnvSpec> = z.object({
  id: z.string(),
  description: z.string(),
  defaultHorizon: z.int().min(1),
  splits: z.object({ train: z.int().min(0), test: z.int().min(0), 'test-templates': z.int().min(0).exactOptional() }),
  maxReward: z.number(),
  symmetries: z.array(z.array(z.string().regex(/^\w+$/)).min(2)).exactOptional(),
});

const ResetResultSchema: z.ZodType<ResetResult> = z.object({ observation: z.string(), info: StepInfoSchema });
const StepResultSchema: z.ZodType<StepResult> = z.object({
  observation: z.string(),
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  info: StepInfoSchema,
});

const RESULT_SCHEMAS = {
  spec: z.object({ spec: EnvSpecSchema, hasOracle: z.boolean() }),
  tasks: z.object({ tasks: z.array(z.string()).readonly() }),
  create: z.object({ instance }),
  reset: ResetResultSchema,
  step: StepResultSchema,
  close: z.object({}),
  oracle: z.object({ action: z.string() }),
} as const satisfies { readonly [O in EnvOp]: z.ZodType };

/** What a successful reply's `result` holds, per op (inferred from the schemas above). */
export type EnvResultByOp = { readonly [O in EnvOp]: Readonly<z.infer<(typeof RESULT_SCHEMAS)[O]>> };

export const WireErrorSchema = z.object({
  code: z.enum(WIRE_ERROR_CODES as readonly WireErrorCode[] as [WireErrorCode, ...WireErrorCode[]]),
  message: z.string(),
});

export const ErrorFrameSchema = z.object({
  op: z.literal('error'),
  id: RequestIdSchema.nullable(),
  error: WireErrorSchema,
});

function responseSchema<O extends EnvOp>(op: O) {
  return z.discriminatedUnion('op', [
    z.object({ op: z.literal('result'), id: RequestIdSchema, result: RESULT_SCHEMAS[op] }),
    ErrorFrameSchema,
  ]);
}

/** The reply to a request of op `O`: its result, or an error frame. */
export type EnvResponse<O extends EnvOp> = z.infer<ReturnType<typeof responseSchema<O>>>;

export const ENV_RESPONSE_SCHEMAS: { readonly [O in EnvOp]: z.ZodType<EnvResponse<O>> } = {
  spec: responseSchema('spec'),
  tasks: responseSchema('tasks'),
  create: responseSchema('create'),
  reset: responseSchema('reset'),
  step: responseSchema('step'),
  close: responseSchema('close'),
  oracle: responseSchema('oracle'),
};
