/**
 * The token record (`rollout`/`collect --format tokens`, docs/token-records.md): one JSON line per
 * scored episode, what a trainer elsewhere (TRL, verl, a script) needs to learn from it without
 * re-tokenizing anything — the ids the model read and sampled, the loss mask, the sampling
 * log-probs, the rewards per turn and the outcome, with the GRPO group it belongs to.
 *
 * `tokens`/`mask`/`logProbs` are the episode as one sequence, the fields and meaning of the
 * learner's `TokenTrajectory` (policy/policy.ts, learner/trajectory-group.ts): mask 1 on the
 * sampled ids (each reply's stop id included), 0 on the template's and the env's; log-probs 0
 * where the mask is 0. `turns` cuts the same ids per turn: `promptIds` are the ids added before the
 * turn's reply (the whole opening render at turn 0, then only what the template adds for the new
 * observation), so turn k's full prompt is the concatenation of every earlier turn's `promptIds`
 * and `responseIds` and its own `promptIds`.
 */
import { z } from 'zod';

export const TOKEN_RECORD_FORMAT = 'actorgym-tokens';

const ids = z.array(z.int().min(0));
const bits = z.array(z.union([z.literal(0), z.literal(1)]));

/** One turn of a token record (docs/token-records.md). */
export const TokenRecordTurnSchema = z.object({
  /** Ids added before this turn's reply (template and observation; mask 0). */
  promptIds: ids,
  /** The ids the model sampled for this turn (mask 1), its stop id included when it ended on one. */
  responseIds: ids,
  /** Sampling log-prob of each response id. */
  logProbs: z.array(z.number()),
  /** The env's reward for this turn's action. */
  reward: z.number(),
  /** The action the env was sent. */
  action: z.string(),
  /** True when re-tokenizing this turn's text gives other ids than it sampled (absent: not checked). */
  drift: z.boolean().exactOptional(),
});

const WindowSchema = z.object({ tokens: ids, mask: bits, logProbs: z.array(z.number()) });

/** One token record (one JSON line of `--format tokens`), field by field in docs/token-records.md. */
export const TokenRecordSchema = z
  .object({
    format: z.literal(TOKEN_RECORD_FORMAT),
    version: z.literal(1),
    env: z.string().min(1),
    split: z.enum(['train', 'test', 'test-templates']),
    taskId: z.string(),
    /** The GRPO group: the task's index in the split; the episodes of one task in one run share it. */
    group: z.int().min(0),
    /** The episode's index within its group. */
    sample: z.int().min(0),
    episodeId: z.string(),
    /** Who sampled it, and the weights' version (0 for an endpoint's model: it does not say). */
    policy: z.object({ name: z.string(), version: z.int().min(0) }),
    /** Most agent turns the episode was allowed. */
    horizon: z.int().min(1),
    /** Aborted episodes (infrastructure) are never written. */
    outcome: z.enum(['success', 'failure', 'truncated']),
    /** Total reward of the episode. */
    reward: z.number(),
    turns: z.array(TokenRecordTurnSchema),
    tokens: ids,
    mask: bits,
    logProbs: z.array(z.number()),
    /** When the episode outgrew the model's context: every window in order (`tokens`… are the last); each sampled id has mask 1 in exactly one. */
    windows: z.array(WindowSchema).exactOptional(),
    /** Turns whose ids differ from re-tokenizing their text; null when not checked (the policy sampled in this process). */
    drift: z.int().min(0).nullable(),
  })
  .check((ctx) => {
    const r = ctx.value;
    if (r.mask.length !== r.tokens.length || r.logProbs.length !== r.tokens.length) {
      ctx.issues.push({ code: 'custom', input: r, path: ['mask'], message: `tokens, mask and logProbs must have one entry each per id: ${r.tokens.length}, ${r.mask.length}, ${r.logProbs.length}` });
    }
    r.turns.forEach((turn, i) => {
      if (turn.logProbs.length !== turn.responseIds.length) {
        ctx.issues.push({ code: 'custom', input: r, path: ['turns', i, 'logProbs'], message: `turn ${i}: ${turn.responseIds.length} response ids but ${turn.logProbs.length} log-probs` });
      }
    });
  });

/** A token record as parsed by `TokenRecordSchema`. */
export type TokenRecord = z.infer<typeof TokenRecordSchema>;
/** One turn of a token record: the ids added before the reply, the reply's ids and log-probs, its reward and action. */
export type TokenRecordTurn = z.infer<typeof TokenRecordTurnSchema>;

/** A JSON-lines file's text as token records; a bad line throws naming its number and field. */
export function parseTokenRecords(text: string): TokenRecord[] {
  return text.split('\n').filter((line) => line.trim() !== '').map((line, i) => {
    const parsed = TokenRecordSchema.safeParse(JSON.parse(line));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`token record line ${i + 1}: ${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  });
}
