/**
 * A WebSocket connection's lane in its server's frame budget (frame-budget.ts), the part every
 * WebSocket server (env, event, learner) wires the same way: the lane pauses and resumes the ws
 * (its peer then waits in TCP), looks again when the socket drains (a blocked peer read its
 * replies), and drops its waiting frames when the connection closes. Without a budget, frames
 * run as they arrive.
 */
import type { RawData, WebSocket } from 'ws';
import type { FrameBudget } from './frame-budget.ts';

/** A frame waiting for the frame budget; `length` is its size in bytes. */
interface InboundFrame {
  readonly data: RawData;
  readonly isBinary: boolean;
  readonly length: number;
}

export interface WsLaneHooks {
  /** Runs a frame the budget let through. */
  run(data: RawData, isBinary: boolean): void;
  /** True while none of this connection's frames may run (its peer is not reading its replies). */
  blocked(): boolean;
}

/** Hands a connection's frames to the budget: call it from the ws `message` listener. */
export type SubmitFrame = (data: RawData, isBinary: boolean) => void;

/**
 * Opens the lane of `ws` in `budget` (undefined: no budget). `socket` is the TCP socket under
 * `ws` (its `drain` unblocks the lane).
 */
export function openWsLane(budget: FrameBudget | undefined, ws: WebSocket, socket: NodeJS.EventEmitter, hooks: WsLaneHooks): SubmitFrame {
  if (budget === undefined) return (data, isBinary) => hooks.run(data, isBinary);
  const lane = budget.lane<InboundFrame>({
    run: (frame) => hooks.run(frame.data, frame.isBinary),
    blocked: () => hooks.blocked(),
    pause: () => ws.pause(),
    resume: () => ws.resume(),
  });
  socket.on('drain', () => lane.unblocked());
  ws.once('close', () => lane.close());
  return (data, isBinary) => lane.submit({ data, isBinary, length: byteLength(data) });
}

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}
