/**
 * The worker side of data-parallel.ts: a copy of the model on its own wasm backend, computing
 * one half-minibatch's gradients per job with the weights the job brings.
 */
import * as tf from '@tensorflow/tfjs';
import { parentPort, workerData } from 'node:worker_threads';
import { selectBackend } from '../../policy/backend.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import type { GradJob, GradReply, GradWorkerInit } from './data-parallel.ts';
import { padRows } from './minibatch.ts';
import { minibatchGrads } from './update.ts';

const init = workerData as GradWorkerInit;
const port = parentPort;
if (port === null) throw new Error('grad-worker.ts runs as a worker thread');
await selectBackend(init.backend as Parameters<typeof selectBackend>[0]);
const model = new Transformer(init.config);
const variables = init.names.map((name) => {
  const v = model.params[name];
  if (v === undefined) throw new Error(`the worker's model has no parameter ${name}`);
  return v;
});

port.on('message', (job: GradJob) => {
  let reply: GradReply;
  const transfer: ArrayBuffer[] = [];
  try {
    tf.tidy(() => variables.forEach((v, i) => v.assign(tf.tensor(job.weights[i]!, v.shape))));
    const { grads, metrics, maskTokens } = minibatchGrads(model, variables, padRows(job.rows), job.fields, job.args);
    const arrays = variables.map((v) => (grads[v.name]!.dataSync() as Float32Array).slice());
    tf.dispose(grads);
    transfer.push(...arrays.map((a) => a.buffer as ArrayBuffer));
    reply = { id: job.id, grads: arrays, metrics, maskTokens };
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply, transfer);
});
port.postMessage({ ready: true });
