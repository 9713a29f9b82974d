/**
 * Decodes the frames of an event server (docs/protocol.md#event-stream) for the dashboard. Run
 * events are checked against the protocol's own schemas, training events (learner.stepped…,
 * which a training run's event server also sends) against the schemas below. Unlike
 * `observeRun`, which fails on anything unexpected, a dashboard keeps watching: an invalid frame
 * is reported and skipped, and an event of a type it does not know (a newer server) is passed on
 * for the board to ignore.
 */
import type { RawData } from 'ws';
import { z } from 'zod';
import { decodeJson } from '../../transport/wire/decode.ts';
import { RolloutSummarySchema, RUN_EVENT_TYPES, RunEventSchema } from '../../streams/events.ts';
import { BufferChangedSchema, CheckpointSavedSchema, EvaluationFinishedSchema, LearnerSteppedSchema, TrainingFinishedSchema, TrainingStartedSchema } from '../../streams/training-events.ts';
import type { BoardEvent } from './episode-board.ts';

export type RemoteFrame =
  /** `seq`: the event's position in the run's stream, when the server numbers its events. */
  | { readonly kind: 'event'; readonly event: BoardEvent; readonly seq?: number }
  | { readonly kind: 'subscribed' }
  | { readonly kind: 'end' }
  /** The server answered with an error frame. */
  | { readonly kind: 'error'; readonly message: string }
  /** Not a valid frame; skipped. */
  | { readonly kind: 'bad'; readonly message: string };

const t = z.number();
// The fields the board reads, picked from the events' own schemas (streams/training-events.ts).
const TRAINING_EVENT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  'training.started': TrainingStartedSchema.pick({ type: true, t: true, env: true, algo: true, fromStep: true, targetSteps: true }),
  'learner.stepped': LearnerSteppedSchema.pick({ type: true, t: true, step: true, policyVersion: true }).extend({ metrics: z.record(z.string(), z.unknown()) }),
  'checkpoint.saved': CheckpointSavedSchema,
  'evaluation.finished': EvaluationFinishedSchema.pick({ type: true, t: true }).extend({ summary: RolloutSummarySchema.pick({ successRate: true, episodes: true }) }),
  'training.finished': TrainingFinishedSchema.pick({ type: true, t: true, steps: true }).extend({ status: z.string() }),
  'buffer.changed': BufferChangedSchema,
};
const RUN_TYPES: ReadonlySet<string> = new Set(RUN_EVENT_TYPES);
const AnyEventSchema = z.object({ type: z.string().min(1).max(64), t });

export function decodeRemoteFrame(data: RawData, isBinary: boolean): RemoteFrame {
  const json = decodeJson(data, isBinary);
  if (!json.ok) return { kind: 'bad', message: json.error.message };
  const frame = json.value as { op?: unknown; seq?: unknown; event?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (typeof frame !== 'object' || frame === null) return { kind: 'bad', message: 'frame is not a JSON object' };
  switch (frame.op) {
    case 'subscribed':
      return { kind: 'subscribed' };
    case 'end':
      return { kind: 'end' };
    case 'error':
      return { kind: 'error', message: `${String(frame.error?.code ?? 'ERROR')}: ${String(frame.error?.message ?? '')}` };
    case 'event': {
      const decoded = decodeEvent(frame.event);
      const seq = frame.seq;
      return decoded.kind === 'event' && Number.isSafeInteger(seq) && (seq as number) >= 0 ? { ...decoded, seq: seq as number } : decoded;
    }
    default:
      return { kind: 'bad', message: `unknown op ${JSON.stringify(frame.op)?.slice(0, 64)}` };
  }
}

function decodeEvent(event: unknown): RemoteFrame {
  const head = AnyEventSchema.safeParse(event);
  if (!head.success) return { kind: 'bad', message: 'event without a string `type` and a numeric `t`' };
  const schema = RUN_TYPES.has(head.data.type) ? RunEventSchema : TRAINING_EVENT_SCHEMAS[head.data.type];
  if (schema) {
    const parsed = schema.safeParse(event);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { kind: 'bad', message: `invalid ${head.data.type} event: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'schema mismatch'}` };
    }
  }
  return { kind: 'event', event: event as BoardEvent };
}
