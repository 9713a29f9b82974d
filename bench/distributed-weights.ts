/**
 * `bench distributed`, part (d): what one policy version costs to broadcast, by stage, as the
 * learner server and a worker do it (docs/distributed-training.md#weights-frame): export (the
 * learner's variables copied off the backend, actors/training/named-weights.ts), encode (the
 * binary weights frame), send (over a loopback WebSocket, ws, no compression), decode, load
 * (into a second model's variables, as a worker's policy takes them). For today's default model
 * (d 128, 2 layers, 512-token vocabulary: ~0.56 M parameters) and a ~50 M-parameter transformer.
 *
 *   npx tsx bench/distributed-weights.ts [--runs 3] [--backend wasm]
 */
import * as tf from '@tensorflow/tfjs-core';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { namedTensors, toNamedWeights } from '../actors/training/named-weights.ts';
import { table } from '../charts/text-table.ts';
import type { BackendPreference } from '../policy/backend-preference.ts';
import { selectBackend } from '../policy/backend.ts';
import { makeConfig, type TransformerConfig } from '../policy/transformer/config.ts';
import { assignParams, disposeParams, initParams, paramShapes } from '../policy/transformer/params.ts';
import { decodeWeightsFrame, encodeWeightsFrame } from '../transport/learner-wire/weights-frame.ts';
import { median } from './stats.ts';

export const WEIGHT_MODELS: readonly { readonly name: string; readonly config: TransformerConfig }[] = [
  { name: 'default (d128 × 2)', config: makeConfig(512) },
  { name: '~50M (d512 × 16)', config: makeConfig(512, { dModel: 512, nLayers: 16, nHeads: 8, dFF: 2048 }) },
];

export interface BroadcastCost {
  readonly parameters: number;
  readonly bytes: number;
  /** Median milliseconds of each stage over the runs. */
  readonly ms: Readonly<Record<'export' | 'encode' | 'send' | 'decode' | 'load', number>>;
}

const parameterCount = (c: TransformerConfig): number => paramShapes(c).reduce((sum, [, shape]) => sum + shape.reduce((a, b) => a * b, 1), 0);

/** A loopback WebSocket pair: `send` resolves with the bytes as the receiving side got them. */
async function loopback(): Promise<{ send(frame: Buffer): Promise<Uint8Array>; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 1 << 30, perMessageDeflate: false });
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const accepted = once(server, 'connection') as Promise<[WebSocket]>;
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { maxPayload: 1 << 30, perMessageDeflate: false });
  await once(client, 'open');
  const [peer] = await accepted;
  return {
    send: (frame) => new Promise((resolve) => {
      client.once('message', (data: RawData) => resolve(data as Buffer));
      peer.send(frame, { binary: true });
    }),
    close: async () => {
      client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function timed<T>(into: number[], run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const value = await run();
  into.push(performance.now() - started);
  return value;
}

/** One model's broadcast, `runs` versions, medians per stage. */
export async function measureBroadcast(config: TransformerConfig, runs: number): Promise<BroadcastCost> {
  const learner = initParams(config, 1);
  const worker = initParams(config, 2);
  const link = await loopback();
  const stages = { export: [] as number[], encode: [] as number[], send: [] as number[], decode: [] as number[], load: [] as number[] };
  let bytes = 0;
  try {
    for (let version = 1; version <= runs; version++) {
      const weights = await timed(stages.export, () => toNamedWeights(version, Object.entries(learner)));
      const frame = await timed(stages.encode, () => encodeWeightsFrame(weights));
      bytes = frame.byteLength;
      const received = await timed(stages.send, () => link.send(frame));
      const decoded = await timed(stages.decode, () => decodeWeightsFrame(received));
      await timed(stages.load, () => {
        const tensors = namedTensors(decoded);
        try {
          assignParams(worker, tensors);
        } finally {
          tf.dispose(Object.values(tensors));
        }
      });
    }
  } finally {
    await link.close();
    disposeParams(learner);
    disposeParams(worker);
  }
  const ms = Object.fromEntries(Object.entries(stages).map(([stage, values]) => [stage, median(values)])) as BroadcastCost['ms'];
  return { parameters: parameterCount(config), bytes, ms };
}

export async function runWeightsBench(runs = 3, backend: BackendPreference = 'wasm'): Promise<string> {
  const used = await selectBackend(backend);
  const rows: string[][] = [['model', 'parameters', 'frame MB', 'export ms', 'encode ms', 'send ms', 'decode ms', 'load ms', 'total ms']];
  for (const model of WEIGHT_MODELS) {
    const cost = await measureBroadcast(model.config, runs);
    const total = Object.values(cost.ms).reduce((a, b) => a + b, 0);
    rows.push([
      model.name, `${(cost.parameters / 1e6).toFixed(2)} M`, (cost.bytes / 1e6).toFixed(2),
      ...(['export', 'encode', 'send', 'decode', 'load'] as const).map((stage) => cost.ms[stage].toFixed(1)), total.toFixed(1),
    ]);
  }
  return `weight broadcast per version (tfjs-${used}, median of ${runs} versions, loopback WebSocket)\n${table(rows)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, backend: { type: 'string', default: 'wasm' } } });
  console.log(await runWeightsBench(Number(values.runs), values.backend as BackendPreference));
}
