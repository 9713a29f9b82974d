/**
 * The worker side of data-parallel.ts: a copy of the model on its own wasm backend, computing
 * one half-minibatch's gradients, or scoring half of a step's rows, per job, with the weights
 * the job brings (the learner's, or the frozen reference's). Jobs arrive one at a time: the
 * learner awaits each reply before it sends the next.
 */
import * as tf from '@tensorflow/tfjs-core';
import { parentPort, workerData } from 'node:worker_threads';
import { selectBackend } from '../policy/backend.ts';
import { paramShapes } from '../policy/transformer/params.ts';
import { Transformer } from '../policy/transformer/transformer.ts';
import type { GradJob, GradReply, GradWorkerInit } from './data-parallel.ts';
import { chunkedGrads } from './chunked-grads.ts';
import { scoreRows } from './score.ts';

const init = workerData as GradWorkerInit;
const port = parentPort;
if (port === null) throw new Error('grad-worker.ts runs as a worker thread');
await selectBackend(init.backend as Parameters<typeof selectBackend>[0]);
const model = new Transformer(init.config);
const byName = (name: string) => {
  const v = model.params[name];
  if (v === undefined) throw new Error(`the worker's model has no parameter ${name}`);
  return v;
};
/** The trained parameters (gradient jobs), and all of them (scoring jobs). */
const variables = init.names.map(byName);
const everything = paramShapes(init.config).map(([name]) => byName(name));

port.on('message', (job: GradJob) => {
  void handle(job).then(({ reply, transfer }) => port.postMessage(reply, transfer));
});

async function handle(job: GradJob): Promise<{ reply: GradReply; transfer: ArrayBuffer[] }> {
  try {
    const assigned = job.kind === 'score' ? everything : variables;
    tf.tidy(() => assigned.forEach((v, i) => v.assign(tf.tensor(job.weights[i]!, v.shape))));
    if (job.kind === 'score') {
      const scores = await scoreRows(model, job.rows, job.options);
      return { reply: { id: job.id, scores }, transfer: [] };
    }
    const { grads, metrics, maskTokens } = chunkedGrads(model, variables, job.rows, job.fields, job.args);
    const arrays = variables.map((v) => (grads[v.name]!.dataSync() as Float32Array).slice());
    tf.dispose(grads);
    return { reply: { id: job.id, grads: arrays, metrics, maskTokens }, transfer: arrays.map((a) => a.buffer as ArrayBuffer) };
  } catch (error) {
    return { reply: { id: job.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, transfer: [] };
  }
}

port.postMessage({ ready: true });
