/**
 * One rollout worker's connection to the learner server. Until its `hello` it may send nothing
 * else; a hello of another protocol version or another env closes it with 1008. Once welcomed
 * (the run, then the current weights frame) it joins the remote producer, which hands it
 * assignments; its groups are validated with the trajectory group schema before the producer
 * sees them. A bad frame costs the worker an `error` frame, never its connection or the server.
 *
 * Its frames run through the server-wide frame budget (../listener/ws-lane.ts), and wait while
 * more than its share of reply bytes waits for it (a worker that sends and never reads cannot grow
 * the server); past the reply budget it is closed. Weights frames are not counted there: one
 * buffer is shared by every worker, and `maxBufferedBytes` caps what one worker holds of them.
 */
import { WebSocket, type RawData } from 'ws';
import { TrajectoryGroupSchema, type TrajectoryGroup } from '../../learner/trajectory-group.ts';
import { decodeWorkerFrame, encodeFrame, encodeLearnerError } from '../../transport/learner-wire/learner-codec.ts';
import type { LearnerErrorCode, RunSpec, WorkerFrame } from '../../transport/learner-wire/learner-schemas.ts';
import { LEARNER_PROTOCOL } from '../../transport/learner-wire/limits.ts';
import { CloseCode, SERVER_CLOSE_GRACE_MS } from '../../transport/wire/limits.ts';
import type { FrameBudget } from '../listener/frame-budget.ts';
import type { OpsLog } from '../listener/ops-log.ts';
import type { OutboundBudget, OutboundPeer } from '../listener/outbound-budget.ts';
import { openWsLane } from '../listener/ws-lane.ts';
import type { RemoteProducer, WorkerPeer } from './remote-producer.ts';

/** What every connection shares: the run, the current weights, the producer and the names in use. */
export interface LearnerContext {
  readonly run: RunSpec;
  readonly producer: RemoteProducer;
  /** The current version and its encoded weights frame. */
  readonly current: () => { readonly version: number; readonly frame: Buffer };
  readonly helloTimeoutMs: number;
  /** Bytes queued for one worker before it is closed (1008). */
  readonly maxBufferedBytes: number;
  readonly names: Set<string>;
  readonly log: OpsLog;
  readonly counters: { frames: number; refused: number; policyCloses: number };
  /** The server-wide frame budget; undefined runs every frame as it arrives. */
  readonly frames: FrameBudget | undefined;
  /** Reply bytes other than weights frames, per worker and over all of them. */
  readonly replies: OutboundBudget;
}

export class WorkerConnection implements WorkerPeer {
  #name: string | undefined;
  readonly #helloTimer: NodeJS.Timeout;
  readonly #replies: OutboundPeer;
  /** Bytes of weights frames handed to ws and not yet written to the socket. */
  #weightsQueued = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly context: LearnerContext,
    private readonly peer: string,
    socket: NodeJS.EventEmitter,
  ) {
    this.#replies = context.replies.add(() => Math.max(0, ws.bufferedAmount - this.#weightsQueued));
    const submit = openWsLane(context.frames, ws, socket, {
      run: (data, isBinary) => this.onFrame(data, isBinary),
      blocked: () => context.replies.blocked(this.#replies),
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      context.counters.frames++;
      submit(data, isBinary);
    });
    ws.once('close', () => this.closed());
    this.#helloTimer = setTimeout(() => this.closeForPolicy(`no hello within ${context.helloTimeoutMs} ms`), context.helloTimeoutMs);
    this.#helloTimer.unref();
  }

  get name(): string {
    return this.#name ?? this.peer;
  }

  get welcomed(): boolean {
    return this.#name !== undefined;
  }

  assign(frame: { readonly id: string; readonly step: number; readonly horizon: number; readonly groups: readonly number[] }): void {
    this.send(encodeFrame({ op: 'assign', ...frame, groups: [...frame.groups] }));
  }

  cancel(id: string): void {
    this.send(encodeFrame({ op: 'cancel', id }));
  }

  /** A new version: its `version` frame, then its weights frame. */
  sendVersion(version: number, frame: Buffer): void {
    if (!this.welcomed || this.ws.readyState !== WebSocket.OPEN) return;
    // A worker that does not read would hold every version in this process's memory.
    if (this.ws.bufferedAmount + frame.length > this.context.maxBufferedBytes) {
      this.context.log('worker.slow', { worker: this.name, buffered: this.ws.bufferedAmount, version });
      return this.closeForPolicy(`${this.ws.bufferedAmount} bytes queued for this worker; it does not read (reconnect for the current version)`);
    }
    this.send(encodeFrame({ op: 'version', version }));
    this.sendWeights(frame);
  }

  drain(reason: string): void {
    this.send(encodeFrame({ op: 'drain', reason }));
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    if (this.ws.readyState !== WebSocket.OPEN) return; // closing: its replies could not be sent
    const decoded = decodeWorkerFrame(data, isBinary);
    if (!decoded.ok) return this.refuse(decoded.error.code as LearnerErrorCode, decoded.error.message);
    const frame = decoded.value;
    if (frame.op === 'hello') return this.hello(frame);
    if (!this.welcomed) return this.refuse('HELLO_FIRST', `send hello before ${frame.op}`);
    const { producer } = this.context;
    const refusal = frame.op === 'group' ? this.group(frame.id, frame.group)
      : frame.op === 'done' ? producer.finished(this, frame.id)
      : producer.finished(this, frame.id, frame.reason);
    if (refusal) this.refuse(refusal.code, refusal.message, frame.id);
  }

  private hello(frame: Extract<WorkerFrame, { op: 'hello' }>): void {
    const { run, names, producer } = this.context;
    if (this.welcomed) return this.refuse('HELLO_AGAIN', 'this connection already said hello');
    if (frame.protocol !== LEARNER_PROTOCOL) return this.refuseAndClose('PROTOCOL_MISMATCH', `this learner speaks protocol ${LEARNER_PROTOCOL}, not ${frame.protocol}`);
    if (frame.env !== run.env) return this.refuseAndClose('ENV_MISMATCH', `this learner trains on "${run.env}", not "${frame.env}"`);
    clearTimeout(this.#helloTimer);
    let name = frame.worker;
    for (let n = 2; names.has(name); n++) name = `${frame.worker}#${n}`;
    names.add(name);
    this.#name = name;
    const { version, frame: weights } = this.context.current();
    this.send(encodeFrame({ op: 'welcome', protocol: LEARNER_PROTOCOL, worker: name, run, version }));
    this.sendWeights(weights);
    this.context.log('worker.joined', { worker: name, peer: this.peer, version });
    producer.join(this);
  }

  private group(id: string, raw: unknown) {
    const parsed = TrajectoryGroupSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `group.${issue.path.join('.')}: ` : 'group: ';
      return { code: 'BAD_GROUP' as const, message: `${where}${issue?.message ?? 'does not match the trajectory group schema'}` };
    }
    return this.context.producer.group(this, id, parsed.data as TrajectoryGroup);
  }

  private refuse(code: LearnerErrorCode, message: string, id?: string): void {
    this.context.counters.refused++;
    this.context.log('frame.refused', { worker: this.name, code, message: message.slice(0, 200) });
    this.send(encodeLearnerError(code, message, id));
  }

  private refuseAndClose(code: LearnerErrorCode, message: string): void {
    this.refuse(code, message);
    this.closeForPolicy(message);
  }

  private send(text: string): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const over = this.context.replies.overLimit(this.#replies);
    if (over !== undefined) {
      this.context.log('worker.slow', { worker: this.name, buffered: this.#replies.accounted });
      return this.closeForPolicy(over);
    }
    this.ws.send(text);
    this.context.replies.sent(this.#replies);
  }

  /** A weights frame: counted apart from the replies until ws has written it (ws calls back then). */
  private sendWeights(frame: Buffer): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.#weightsQueued += frame.length;
    this.ws.send(frame, { binary: true }, () => (this.#weightsQueued -= frame.length));
  }

  /** Closes with 1008; a peer that does not answer the closing handshake (it does not read) is cut after the grace period. */
  private closeForPolicy(reason: string): void {
    this.context.counters.policyCloses++;
    this.ws.close(CloseCode.POLICY, reason.slice(0, 120));
    const force = setTimeout(() => this.ws.terminate(), SERVER_CLOSE_GRACE_MS);
    this.ws.once('close', () => clearTimeout(force));
  }

  private closed(): void {
    clearTimeout(this.#helloTimer);
    this.context.replies.remove(this.#replies);
    if (!this.welcomed) return;
    this.context.names.delete(this.name);
    this.context.log('worker.left', { worker: this.name });
    this.context.producer.leave(this);
  }
}
