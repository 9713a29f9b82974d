/**
 * The body of `POST /v1/rollouts` (docs/trainers.md, "The rollout service"), checked with zod.
 * A trainer's client is written against exactly these fields, so unknown ones are refused (a typo
 * such as `group_size` would otherwise silently run G = 1). `parseRolloutRequest` never throws:
 * it returns the first problem's message and the field it is about, as the 400 body says them.
 */
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const RolloutPolicySchema = z.strictObject({
  /** The OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8000/v1` (vLLM, SGLang, serve-policy). */
  baseUrl: z.string().url(),
  model: z.string().min(1),
  /** `hf:DIR`, a tokenizer folder on the service's machine (the served model's tokenizer). */
  tokenizer: z.string().regex(/^hf:.+/, 'tokenizer must be hf:DIR, a tokenizer folder on the rollout service\'s machine'),
  temperature: z.number().min(0).optional(),
  /** Nucleus sampling mass in (0, 1], sent to the endpoint as `top_p`; absent: not sent (the server's default). */
  topP: z.number().gt(0).max(1).optional(),
  maxTokens: positiveInt.optional(),
  apiKey: z.string().optional(),
});

export const RolloutCurriculumSchema = z.strictObject({
  /** `fixed:N`, `scaling:[h0,h1,…]@Δ` or `adaptive:min=A,max=B,…` (the last needs `run`). */
  schedule: z.string().min(1),
  /** The trainer's learner step (1-based, as the schedules count). */
  step: positiveInt,
  /** The trainer's run id: the service keeps an adaptive curriculum per run (required for adaptive, ignored otherwise). */
  run: z.string().min(1).max(200).optional(),
});

export const RolloutRequestSchema = z
  .strictObject({
    env: z.string().min(1),
    split: z.enum(['train', 'test']).default('train'),
    tasks: z.array(z.string().min(1)).min(1).optional(),
    count: positiveInt.optional(),
    offset: z.number().int().min(0).optional(),
    groupSize: positiveInt.default(1),
    seed: z.number().int().min(0).optional(),
    horizon: positiveInt.optional(),
    curriculum: RolloutCurriculumSchema.optional(),
    concurrency: positiveInt.optional(),
    policy: RolloutPolicySchema,
  })
  .superRefine((body, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (body.tasks !== undefined && body.count !== undefined) issue('count', 'give tasks or count, not both');
    if (body.tasks === undefined && body.count === undefined) issue('count', 'give tasks (task ids) or count (the first count tasks of the split)');
    if (body.offset !== undefined && body.count === undefined) issue('offset', 'offset goes with count');
    if (body.horizon !== undefined && body.curriculum !== undefined) issue('curriculum', 'give horizon or curriculum, not both');
    if (body.tasks !== undefined && new Set(body.tasks).size !== body.tasks.length) issue('tasks', 'a task is named twice (use groupSize for several episodes of one task)');
  });

export type RolloutRequest = z.infer<typeof RolloutRequestSchema>;

/** A refused request: what was wrong and the field (dotted path) it is about. */
export interface RequestProblem {
  readonly message: string;
  readonly field: string;
}

export type ParsedRequest = { readonly ok: true; readonly value: RolloutRequest } | ({ readonly ok: false } & RequestProblem);

export function parseRolloutRequest(body: unknown): ParsedRequest {
  const parsed = RolloutRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const first = parsed.error.issues[0];
  const field = first?.path.map(String).join('.') ?? '';
  const unknownKeys = first?.code === 'unrecognized_keys' ? (first as { keys?: string[] }).keys ?? [] : [];
  const named = unknownKeys.length > 0 ? [field, unknownKeys[0]].filter((p) => p !== '' && p !== undefined).join('.') : field;
  const message = `${named || 'body'}: ${first?.message ?? 'invalid'}`;
  return { ok: false, message, field: named };
}
