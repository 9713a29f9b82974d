/**
 * zod schemas of the event stream's frames (docs/protocol.md#event-stream). The events they carry
 * are parsed with streams/'s schemas (streams/events.ts, streams/training-events.ts), whose
 * TypeScript types are inferred from them, so an observer validates every event it receives.
 */
import { z } from 'zod';
import { RUN_EVENT_TYPES, RunEventSchema } from '../../streams/events.ts';
import { TRAINING_EVENT_TYPES, TrainingEventSchema } from '../../streams/training-events.ts';
import { ErrorFrameSchema, RequestIdSchema } from './env-schemas.ts';

// The events' schemas are streams/'s (one source per shape); the wire frames carry them.
export { RUN_EVENT_TYPES, RunEventSchema, TRAINING_EVENT_TYPES };

/** Any event of a rollout or training run's stream. */
export const StreamEventSchema = TrainingEventSchema;

export const STREAM_EVENT_TYPES = [...RUN_EVENT_TYPES, ...TRAINING_EVENT_TYPES] as const;

/** Observer → event server. `types` absent means every type. */
export const SubscribeFrameSchema = z.object({
  op: z.literal('subscribe'),
  id: RequestIdSchema.exactOptional(),
  types: z.array(z.enum(STREAM_EVENT_TYPES)).exactOptional(),
  /** Replay only events whose `seq` is above this one (a reconnecting observer's last). */
  after: z.int().min(0).exactOptional(),
});
export type SubscribeFrame = z.infer<typeof SubscribeFrameSchema>;

/** Event server → observer. */
export const EventServerFrameSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('subscribed'), replayed: z.int().min(0).exactOptional(), missed: z.int().min(0).exactOptional() }),
  z.object({ op: z.literal('event'), seq: z.int().min(0).exactOptional(), event: StreamEventSchema }),
  z.object({ op: z.literal('end') }),
  ErrorFrameSchema,
]);
export type EventServerFrame = z.infer<typeof EventServerFrameSchema>;
