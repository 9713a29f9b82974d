/**
 * The learner on a second core. The WebAssembly backend runs single-threaded under Node, so the
 * learner would leave the second core idle. Here a worker thread (its own wasm instance, and a
 * copy of the weights sent with every job) takes the second half of the work while this thread
 * does the first:
 *   - scoring a step's rows (the reference's and the learner's own log-probs, PPO's values);
 *   - each minibatch's gradients, combined before clipping and Adam.
 *
 * Exactness. Every loss term is a token-mean over the minibatch's trained (mask-1) tokens, so
 * the minibatch's gradient is the halves' gradients weighted by their shares of those tokens:
 * the same maths as one pass, up to float32 rounding in the sums. The split depends only on the
 * rows' lengths (alternate rows by length), so a run is as deterministic with a worker as without.
 */
import * as tf from '@tensorflow/tfjs-core';
import { Worker } from 'node:worker_threads';
import type { TransformerConfig } from '../policy/transformer/config.ts';
import { paramShapes } from '../policy/transformer/params.ts';
import type { Transformer } from '../policy/transformer/transformer.ts';
import type { AllowedTokens } from './allowed-tokens.ts';
import { learnerDefaults, type LearnerArgs } from './args.ts';
import { byLength } from './by-length.ts';
import { chunkedGrads, combineParts, pickFields } from './chunked-grads.ts';
import type { LearnerOptimizer } from './optimizer.ts';
import { scoreRows, type RowScores, type ScoreOptions } from './score.ts';
import { applyGrads, type MinibatchFields, type MinibatchGrads } from './update.ts';

export interface GradWorkerInit {
  readonly backend: string;
  readonly config: TransformerConfig;
  /**
   * The trained parameters' names in the optimizer's fixed order: a gradient job's weights and
   * gradients travel in it. A scoring job's weights are every parameter, in `paramShapes` order.
   */
  readonly names: readonly string[];
}

export type GradJob =
  | {
    readonly kind: 'grads';
    readonly id: number;
    readonly weights: Float32Array[];
    readonly rows: readonly Row[];
    readonly fields: MinibatchFields;
    readonly args: LearnerArgs;
  }
  | { readonly kind: 'score'; readonly id: number; readonly weights: Float32Array[]; readonly rows: readonly Row[]; readonly options: ScoreOptions };

export type GradReply =
  | { readonly id: number; readonly grads: Float32Array[]; readonly metrics: Record<string, number>; readonly maskTokens: number }
  | { readonly id: number; readonly scores: RowScores }
  | { readonly id: number; readonly error: string };

type Row = { readonly tokens: readonly number[]; readonly allowed?: AllowedTokens };

const WORKER = new URL('./grad-worker.mjs', import.meta.url);

/** The learner hyperparameters alone, as a plain object a worker can be sent. */
function learnerArgs(args: LearnerArgs): LearnerArgs {
  const keys = ['algo', ...Object.keys(learnerDefaults)] as (keyof LearnerArgs)[];
  const plain = Object.fromEntries(keys.map((k) => [k, args[k]])) as unknown as LearnerArgs;
  return args.objective === undefined ? plain : { ...plain, objective: args.objective };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Only what a worker needs of a row: the training rows also carry their episode. */
function plainRows(rows: readonly Row[]): Row[] {
  return rows.map((r) => ({ tokens: r.tokens, ...(r.allowed ? { allowed: r.allowed } : {}) }));
}

/**
 * The two halves of a minibatch: rows taken alternately in order of length, so both halves get
 * the same mix of short and long rows (and finish together), and each then chunks its rows by
 * length (chunked-grads.ts). Fixed by the lengths alone, so a run stays deterministic.
 */
function halves(rows: readonly Row[]): [number[], number[]] {
  const order = byLength(rows.map((r) => r.tokens.length));
  return [order.filter((_, k) => k % 2 === 0), order.filter((_, k) => k % 2 === 1)];
}

export class DataParallelGrads {
  private readonly pending = new Map<number, { resolve: (r: GradReply) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker, private readonly allNames: readonly string[]) {
    worker.on('message', (reply: GradReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiting?.resolve(reply);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const w of this.pending.values()) w.reject(this.failure);
      this.pending.clear();
    };
    worker.on('error', (e) => fail(new Error(`learner worker failed: ${e.message}`)));
    worker.on('exit', (code) => fail(new Error(`learner worker exited (code ${code})`)));
  }

  /** Starts the worker and waits until its backend and model are ready. */
  static async start(init: GradWorkerInit): Promise<DataParallelGrads> {
    const worker = new Worker(WORKER, { workerData: init });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if ((m as { ready?: boolean }).ready !== true) return;
        worker.off('message', onMessage);
        worker.off('error', onError);
        resolve();
      };
      const onError = (e: Error) => reject(new Error(`learner worker failed to start: ${e.message}`));
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', (code) => reject(new Error(`learner worker exited while starting (code ${code})`)));
    });
    return new DataParallelGrads(worker, paramShapes(init.config).map(([name]) => name));
  }

  /** One minibatch update (gradients, clipping, Adam), half of its rows computed by the worker. */
  async update(model: Transformer, optimizer: LearnerOptimizer, rows: readonly Row[], fields: MinibatchFields, args: LearnerArgs): Promise<Record<string, number>> {
    const { grads, metrics } = await this.grads(model, optimizer.variables, rows, fields, args);
    return { ...metrics, ...applyGrads(optimizer, grads, args) };
  }

  /** The minibatch's gradients and metrics (chunked-grads.ts's `chunkedGrads`), from both halves. */
  async grads(model: Transformer, variables: tf.Variable[], rows: readonly Row[], fields: MinibatchFields, args: LearnerArgs): Promise<MinibatchGrads> {
    if (this.failure) throw this.failure;
    if (rows.length < 2) return chunkedGrads(model, variables, rows, fields, args);
    const [own, other] = halves(rows);
    const weights = variables.map((v) => (v.dataSync() as Float32Array).slice());
    const theirs = this.call({
      kind: 'grads',
      weights,
      rows: plainRows(other.map((i) => rows[i]!)),
      fields: pickFields(fields, other),
      args: learnerArgs(args),
    });
    theirs.catch(() => undefined); // awaited below
    const mine = chunkedGrads(model, variables, own.map((i) => rows[i]!), pickFields(fields, own), args);
    let reply: GradReply;
    try {
      reply = await theirs;
    } catch (error) {
      tf.dispose(mine.grads);
      throw error;
    }
    if (!('grads' in reply)) {
      tf.dispose(mine.grads);
      throw new Error(`learner worker: ${'error' in reply ? reply.error : 'a score reply to a gradient job'}`);
    }
    const received: MinibatchGrads = {
      grads: Object.fromEntries(variables.map((v, i) => [v.name, tf.tensor(reply.grads[i]!, v.shape)])),
      metrics: reply.metrics,
      maskTokens: reply.maskTokens,
    };
    return combineParts(variables, [mine, received]);
  }

  /** score.ts's `scoreRows` over `rows`, half of them (alternate by length) scored by the worker with `model`'s weights. */
  async scoreRows(model: Transformer, rows: readonly Row[], options: ScoreOptions): Promise<RowScores> {
    if (this.failure) throw this.failure;
    if (rows.length < 2) return scoreRows(model, rows, options);
    const [own, other] = halves(rows);
    // Every parameter (the value head too, which a critic-less learner does not train).
    const weights = this.allNames.map((name) => (model.params[name]!.dataSync() as Float32Array).slice());
    const theirs = this.call({ kind: 'score', weights, rows: plainRows(other.map((i) => rows[i]!)), options: { temperature: options.temperature, constrained: options.constrained } });
    theirs.catch(() => undefined); // awaited below; a failure while this half runs is not unhandled
    const mine = await scoreRows(model, own.map((i) => rows[i]!), options);
    const reply = await theirs;
    if (!('scores' in reply)) throw new Error(`learner worker: ${'error' in reply ? reply.error : 'a gradient reply to a score job'}`);
    const logProbs: Float32Array[] = new Array(rows.length);
    const values: Float32Array[] = new Array(rows.length);
    own.forEach((i, k) => { logProbs[i] = mine.logProbs[k]!; values[i] = mine.values[k]!; });
    other.forEach((i, k) => { logProbs[i] = reply.scores.logProbs[k]!; values[i] = reply.scores.values[k]!; });
    return { logProbs, values };
  }

  async close(): Promise<void> {
    this.failure ??= new Error('learner worker closed');
    await this.worker.terminate();
  }

  private call(job: DistributiveOmit<GradJob, 'id'>): Promise<GradReply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...job, id } as GradJob, job.weights.map((w) => w.buffer as ArrayBuffer));
    });
  }
}
