/**
 * What a rollout worker does with the learner's frames: on `welcome` it opens its policy (once;
 * a reconnect reuses it) and loads the weights frame that follows; on `version` it keeps the
 * weights frame that follows until the assignment under way ends, so every group is sampled by
 * one version; on `assign` it runs the assignment through its producer — one at a time, in the
 * order they came — and sends each group as it finishes, then `done` (or `failed`); on `cancel`
 * it stops that assignment. When the learner goes away, everything of that connection is
 * dropped: the assignment under way is cancelled, queued ones and weights not yet applied are
 * forgotten, and nothing is sent until the next welcome brings the current version.
 */
import type { RawData } from 'ws';
import { errorMessage } from '../../envs/error-message.ts';
import { decodeLearnerFrame, encodeFrame } from '../../transport/learner-wire/learner-codec.ts';
import type { AssignFrame, LearnerFrame, WelcomeFrame } from '../../transport/learner-wire/learner-schemas.ts';
import { decodeWeightsFrame } from '../../transport/learner-wire/weights-frame.ts';
import type { NamedWeights, Producer } from '../buffer/producer.ts';
import type { LinkSession } from './learner-link.ts';

/** The policy a worker samples with and the producer that runs its assignments. */
export interface WorkerPolicy {
  readonly producer: Producer;
  /** Applies a version's weights; called only between assignments. */
  load(weights: NamedWeights): void;
  dispose(): void;
}

/** Builds the worker's policy from the learner's welcome (worker-policy.ts `openWorkerPolicy`). */
export type OpenWorkerPolicy = (welcome: WelcomeFrame) => Promise<WorkerPolicy>;

export interface WorkerStats {
  connects: number;
  assignments: number;
  groups: number;
  failed: number;
  cancelled: number;
  /** The version the policy samples with now (-1 before the first welcome). */
  version: number;
  /** Frames of the learner the worker could not read (logged, then ignored). */
  badFrames: number;
}

export type WorkerLog = (event: string, fields?: Readonly<Record<string, string | number | boolean | undefined>>) => void;

export class WorkerSession implements LinkSession {
  readonly stats: WorkerStats = { connects: 0, assignments: 0, groups: 0, failed: 0, cancelled: 0, version: -1, badFrames: 0 };
  #policy: Promise<WorkerPolicy> | undefined;
  #send: ((text: string) => void) | undefined;
  /** Bumped at every connect and disconnect: work of an older connection sends nothing. */
  #epoch = 0;
  #name = '';
  /** The version whose weights frame comes next. */
  #expecting: number | undefined;
  #pending: NamedWeights | undefined;
  #queue: Promise<void> = Promise.resolve();
  readonly #running = new Map<string, AbortController>();

  constructor(
    private readonly open: OpenWorkerPolicy,
    private readonly fatal: (reason: string) => void,
    private readonly log: WorkerLog = () => {},
  ) {}

  connected(send: (text: string) => void): void {
    this.#epoch++;
    this.#send = send;
    this.stats.connects++;
  }

  disconnected(): void {
    this.#epoch++;
    this.#send = undefined;
    this.#expecting = undefined;
    this.#pending = undefined;
    for (const controller of this.#running.values()) controller.abort();
    this.#running.clear();
    this.log('learner.lost', {});
  }

  frame(data: RawData, isBinary: boolean): void {
    if (isBinary) return this.weights(data);
    const decoded = decodeLearnerFrame(data);
    if (!decoded.ok) {
      this.stats.badFrames++;
      return this.log('frame.bad', { code: decoded.error.code, message: decoded.error.message });
    }
    this.control(decoded.value);
  }

  /** Resolves once queued work has settled; then frees the policy. */
  async dispose(): Promise<void> {
    for (const controller of this.#running.values()) controller.abort();
    await this.#queue;
    (await this.#policy?.catch(() => undefined))?.dispose();
  }

  private control(frame: LearnerFrame): void {
    switch (frame.op) {
      case 'welcome':
        return this.welcome(frame);
      case 'version':
        this.#expecting = frame.version;
        return;
      case 'assign':
        return this.enqueue(frame);
      case 'cancel':
        this.#running.get(frame.id)?.abort();
        return;
      case 'drain':
        return this.log('learner.draining', { reason: frame.reason });
      case 'error':
        if (frame.code === 'PROTOCOL_MISMATCH' || frame.code === 'ENV_MISMATCH') return this.fatal(`the learner refused this worker: ${frame.message}`);
        return this.log('learner.error', { code: frame.code, message: frame.message, id: frame.id });
    }
  }

  private welcome(frame: WelcomeFrame): void {
    this.#name = frame.worker;
    this.#expecting = frame.version;
    this.#policy ??= this.open(frame);
    this.log('learner.welcome', { worker: frame.worker, version: frame.version });
  }

  private weights(data: RawData): void {
    try {
      const weights = decodeWeightsFrame(Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]));
      if (weights.version !== this.#expecting) throw new Error(`weights frame of version ${weights.version}, but version ${this.#expecting ?? 'none'} was announced`);
      this.#pending = weights;
      this.#expecting = undefined;
    } catch (error) {
      this.stats.badFrames++;
      this.log('frame.bad', { message: errorMessage(error) });
    }
  }

  private enqueue(frame: AssignFrame): void {
    const epoch = this.#epoch;
    const controller = new AbortController();
    this.#running.set(frame.id, controller);
    this.#queue = this.#queue.then(() => this.run(frame, epoch, controller));
  }

  private async run(frame: AssignFrame, epoch: number, controller: AbortController): Promise<void> {
    if (epoch !== this.#epoch || controller.signal.aborted) return void this.#running.delete(frame.id);
    const send = (text: string) => {
      if (epoch === this.#epoch) this.#send?.(text);
    };
    if (this.#policy === undefined) {
      this.#running.delete(frame.id);
      return send(encodeFrame({ op: 'failed', id: frame.id, reason: 'assignment before welcome' }));
    }
    let policy: WorkerPolicy;
    try {
      policy = await this.#policy;
    } catch (error) {
      return this.fatal(`could not open the policy of the learner's run: ${errorMessage(error)}`);
    }
    try {
      this.apply(policy);
      this.stats.assignments++;
      await policy.producer.produce({ step: frame.step, horizon: frame.horizon, groups: frame.groups }, (group) => {
        if (controller.signal.aborted) return;
        this.stats.groups++;
        send(encodeFrame({ op: 'group', id: frame.id, group: { ...group, producer: this.#name } }));
      }, controller.signal);
      // A producer may settle quietly once cancelled: the learner has forgotten the assignment.
      if (controller.signal.aborted) this.stats.cancelled++;
      else send(encodeFrame({ op: 'done', id: frame.id }));
    } catch (error) {
      if (controller.signal.aborted) this.stats.cancelled++;
      else {
        this.stats.failed++;
        send(encodeFrame({ op: 'failed', id: frame.id, reason: errorMessage(error).slice(0, 4000) }));
      }
    } finally {
      this.#running.delete(frame.id);
    }
  }

  /** Loads the newest weights that arrived, between assignments. */
  private apply(policy: WorkerPolicy): void {
    const weights = this.#pending;
    if (weights === undefined) return;
    this.#pending = undefined;
    policy.load(weights);
    this.stats.version = weights.version;
    this.log('version.applied', { version: weights.version });
  }
}
