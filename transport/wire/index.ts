/** The wire codec and WebSocket plumbing shared by actorgym's servers and clients (docs/protocol.md). */
export { decodeEnvRequest, decodeEnvResponse, encodeEnvRequest, encodeError, encodeResult, type EnvRequestBody } from './env-codec.ts';
export {
  ENV_OPS,
  ENV_RESPONSE_SCHEMAS,
  EnvRequestSchema,
  EnvSpecSchema,
  ErrorFrameSchema,
  RequestIdSchema,
  WireErrorSchema,
  type EnvOp,
  type EnvRequest,
  type EnvResponse,
  type EnvResultByOp,
  type RequestId,
} from './env-schemas.ts';
export { decodeEventServerFrame, decodeSubscribe, encodeEvent, encodeSubscribe, END_FRAME, SUBSCRIBED_FRAME } from './event-codec.ts';
export {
  EventServerFrameSchema,
  RUN_EVENT_TYPES,
  RunEventSchema,
  SubscribeFrameSchema,
  type EventServerFrame,
  type SubscribeFrame,
} from './event-schemas.ts';
export { toEnvError, toWireError, WIRE_ERROR_CODES, WireFault, type WireError, type WireErrorCode } from './errors.ts';
export type { Decoded } from './decode.ts';
export {
  CLIENT_CALL_TIMEOUT_MS,
  CLIENT_HEARTBEAT_MS,
  CLIENT_HIGH_WATER_MARK,
  CLIENT_MAX_PAYLOAD,
  CloseCode,
  CONNECT_TIMEOUT_MS,
  ENV_SERVER_MAX_BUFFERED_BYTES,
  ENV_SERVER_MAX_PAYLOAD,
  EVENT_LOSSY_BUFFER_BYTES,
  EVENT_MAX_BUFFERED_BYTES,
  EVENT_SERVER_MAX_PAYLOAD,
  MAX_INSTANCES_PER_CONNECTION,
  RATE_LIMIT,
  SERVER_CALL_TIMEOUT_MS,
  SERVER_HEARTBEAT_MS,
} from './limits.ts';
