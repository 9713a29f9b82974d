/** Encoding and decoding of event stream frames (docs/protocol.md#event-stream). */
import type { RawData } from 'ws';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { decodeJson, decodeWith, type Decoded } from './decode.ts';
import {
  EventServerFrameSchema,
  SubscribeFrameSchema,
  type EventServerFrame,
  type SubscribeFrame,
} from './event-schemas.ts';

const SUBSCRIBE_OPS: ReadonlySet<string> = new Set(['subscribe']);
const SERVER_OPS: ReadonlySet<string> = new Set(['subscribed', 'event', 'end', 'error']);

/** The event server's reply to an accepted `subscribe` frame. */
export const SUBSCRIBED_FRAME = '{"op":"subscribed"}';
/** The event server's last frame of a run: the stream is complete. */
export const END_FRAME = '{"op":"end"}';

/** An `event` frame; `seq` is the event's position in the run's stream (the event server sets it). */
export function encodeEvent(event: TrainingEvent, seq?: number): string {
  return seq === undefined ? `{"op":"event","event":${JSON.stringify(event)}}` : `{"op":"event","seq":${seq},"event":${JSON.stringify(event)}}`;
}

/** The `subscribed` answer: how many events the replay sends, and how many lossless ones it no longer holds. */
export function encodeSubscribed(replayed: number, missed: number): string {
  return `{"op":"subscribed","replayed":${replayed},"missed":${missed}}`;
}

/** `after`: a reconnecting observer's last `seq`; the replay starts after it. */
export function encodeSubscribe(types?: readonly TrainingEvent['type'][], after?: number): string {
  return JSON.stringify({ op: 'subscribe', ...(types !== undefined ? { types } : {}), ...(after !== undefined ? { after } : {}) });
}

/** Event server side: the observer's `subscribe` frame, validated. */
export function decodeSubscribe(data: RawData, isBinary: boolean): Decoded<SubscribeFrame> {
  const json = decodeJson(data, isBinary);
  return json.ok ? decodeWith(SubscribeFrameSchema, SUBSCRIBE_OPS, json.value) : json;
}

/** Observer side: a frame from the event server, validated. */
export function decodeEventServerFrame(data: RawData, isBinary: boolean): Decoded<EventServerFrame> {
  const json = decodeJson(data, isBinary);
  return json.ok ? decodeWith(EventServerFrameSchema, SERVER_OPS, json.value) : json;
}
