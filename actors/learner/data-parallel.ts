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
 * the same maths as one pass, up to float32 rounding in the sums. The split is fixed (first half
 * here), so a run is as deterministic with a worker as without one.
 */
import * as tf from '@tensorflow/tfjs';
import { Worker } from 'node:worker_threads';
import type { TransformerConfig } from '../../policy/transformer/config.ts';
import { paramShapes } from '../../policy/transformer/params.ts';
import type { Transformer } from '../../policy/transformer/transformer.ts';
import type { AllowedTokens } from './allowed-tokens.ts';
import { learnerDefaults, type LearnerArgs } from './args.ts';
import { padRows } from './minibatch.ts';
import type { LearnerOptimizer } from './optimizer.ts';
import { scoreRows, type RowScores, type ScoreOptions } from './score.ts';
import { applyGrads, minibatchGrads, type MinibatchFields, type MinibatchGrads } from './update.ts';

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
  return Object.fromEntries(keys.map((k) => [k, args[k]])) as unknown as LearnerArgs;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Only what a worker needs of a row: the training rows also carry their episode. */
function plainRows(rows: readonly Row[]): Row[] {
  return rows.map((r) => ({ tokens: r.tokens, ...(r.allowed ? { allowed: r.allowed } : {}) }));
}

function sliceFields(f: MinibatchFields, from: number, to: number): MinibatchFields {
  return {
    mask: f.mask.slice(from, to),
    oldLogProbs: f.oldLogProbs.slice(from, to),
    advantages: f.advantages.slice(from, to),
    ...(f.refLogProbs ? { refLogProbs: f.refLogProbs.slice(from, to) } : {}),
    ...(f.oldValues ? { oldValues: f.oldValues.slice(from, to) } : {}),
    ...(f.returns ? { returns: f.returns.slice(from, to) } : {}),
  };
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

  /** One minibatch update (update.ts's `updateMinibatch`), its second half computed by the worker. */
  async update(model: Transformer, optimizer: LearnerOptimizer, rows: readonly Row[], fields: MinibatchFields, args: LearnerArgs): Promise<Record<string, number>> {
    const { grads, metrics } = await this.grads(model, optimizer.variables, rows, fields, args);
    return { ...metrics, ...applyGrads(optimizer, grads, args) };
  }

  /** The minibatch's gradients and metrics (update.ts's `minibatchGrads`), from both halves. */
  async grads(model: Transformer, variables: tf.Variable[], rows: readonly Row[], fields: MinibatchFields, args: LearnerArgs): Promise<MinibatchGrads> {
    if (this.failure) throw this.failure;
    if (rows.length < 2) return minibatchGrads(model, variables, padRows(rows), fields, args);
    const half = Math.ceil(rows.length / 2);
    const weights = variables.map((v) => (v.dataSync() as Float32Array).slice());
    const theirs = this.call({
      kind: 'grads',
      weights,
      rows: plainRows(rows.slice(half)),
      fields: sliceFields(fields, half, rows.length),
      args: learnerArgs(args),
    });
    theirs.catch(() => undefined); // awaited below
    const mine = minibatchGrads(model, variables, padRows(rows.slice(0, half)), sliceFields(fields, 0, half), args);
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
    const total = mine.maskTokens + reply.maskTokens;
    // A half with no trained token has a zero loss and zero gradients: its weight is 0.
    const a = total > 0 ? mine.maskTokens / total : 1;
    const b = total > 0 ? reply.maskTokens / total : 0;
    const grads: tf.NamedTensorMap = {};
    tf.tidy(() => {
      variables.forEach((v, i) => {
        const own = mine.grads[v.name];
        if (own === undefined) throw new Error(`no gradient for parameter ${v.name}`);
        grads[v.name] = tf.keep(tf.add(tf.mul(own, a), tf.mul(tf.tensor(reply.grads[i]!, v.shape), b)));
      });
    });
    tf.dispose(mine.grads);
    const metrics: Record<string, number> = {};
    for (const k of new Set([...Object.keys(mine.metrics), ...Object.keys(reply.metrics)])) {
      metrics[k] = a * (mine.metrics[k] ?? 0) + b * (reply.metrics[k] ?? 0);
    }
    return { grads, metrics, maskTokens: total };
  }

  /** score.ts's `scoreRows` over `rows`, the second half scored by the worker with `model`'s weights. */
  async scoreRows(model: Transformer, rows: readonly Row[], options: ScoreOptions): Promise<RowScores> {
    if (this.failure) throw this.failure;
    if (rows.length < 2) return scoreRows(model, rows, options);
    const half = Math.ceil(rows.length / 2);
    // Every parameter (the value head too, which a critic-less learner does not train).
    const weights = this.allNames.map((name) => (model.params[name]!.dataSync() as Float32Array).slice());
    const theirs = this.call({ kind: 'score', weights, rows: plainRows(rows.slice(half)), options: { temperature: options.temperature, constrained: options.constrained } });
    theirs.catch(() => undefined); // awaited below; a failure while this half runs is not unhandled
    const mine = await scoreRows(model, rows.slice(0, half), options);
    const reply = await theirs;
    if (!('scores' in reply)) throw new Error(`learner worker: ${'error' in reply ? reply.error : 'a gradient reply to a score job'}`);
    return { logProbs: [...mine.logProbs, ...reply.scores.logProbs], values: [...mine.values, ...reply.scores.values] };
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
