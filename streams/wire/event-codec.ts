/** Encoding and decoding of event stream frames (docs/protocol.md#event-stream). */
import type { RawData } from 'ws';
import type { TrainingEvent } from '../training-events.ts';
import { decodeJson, decodeWith, type Decoded } from './decode.ts';
import {
  EventServerFrameSchema,
  SubscribeFrameSchema,
  type EventServerFrame,
  type SubscribeFrame,
} from './event-schemas.ts';

const SUBSCRIBE_OPS: ReadonlySet<string> = new Set(['subscribe']);
const SERVER_OPS: ReadonlySet<string> = new Set(['subscribed', 'event', 'end', 'error']);

export const SUBSCRIBED_FRAME = '{"op":"subscribed"}';
export const END_FRAME = '{"op":"end"}';

export function encodeEvent(event: TrainingEvent): string {
  return `{"op":"event","event":${JSON.stringify(event)}}`;
}

export function encodeSubscribe(types?: readonly TrainingEvent['type'][]): string {
  return JSON.stringify(types === undefined ? { op: 'subscribe' } : { op: 'subscribe', types });
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
