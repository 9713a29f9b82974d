import * as tf from '@tensorflow/tfjs-core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { registerStandInNative, STAND_IN_NAME, standInImporter } from './stand-in-native.ts';

const GPU = '@tensorflow/tfjs-node-gpu';
const NODE = '@tensorflow/tfjs-node';
const WASM = '@tensorflow/tfjs-backend-wasm';

describe('selectBackend', () => {
  afterAll(async () => {
    await selectBackend('cpu');
  });

  it('auto picks the best backend that loads (wasm here, since tfjs-node is not installed)', async () => {
    const name = await selectBackend('auto');
    expect(['tensorflow', 'wasm']).toContain(name);
    expect(tf.getBackend()).toBe(name);
  });

  it('forces wasm and cpu', async () => {
    expect(await selectBackend('wasm')).toBe('wasm');
    expect(tf.tidy(() => tf.add(tf.scalar(1), tf.scalar(2)).dataSync()[0])).toBe(3);
    expect(await selectBackend('cpu')).toBe('cpu');
  });

  it('rejects an unknown preference', async () => {
    await expect(selectBackend('gpu' as never)).rejects.toThrow(/unknown backend/);
  });
});

describe('selectBackend fallback order (stand-in packages)', () => {
  afterAll(async () => {
    await selectBackend('cpu');
  });

  it('auto: native gpu → native cpu → wasm → cpu, taking the first that loads', async () => {
    const gpu = standInImporter([GPU, NODE, WASM]);
    expect(await selectBackend('auto', gpu)).toBe(STAND_IN_NAME);
    expect(gpu.asked).toEqual([GPU]);

    const node = standInImporter([NODE, WASM]);
    await selectBackend('cpu');
    expect(await selectBackend('auto', node)).toBe(STAND_IN_NAME);
    expect(node.asked).toEqual([GPU, NODE]);

    const wasm = standInImporter([WASM]);
    expect(await selectBackend('auto', wasm)).toBe('wasm');
    expect(wasm.asked).toEqual([GPU, NODE, WASM]);

    const none = standInImporter([]);
    expect(await selectBackend('auto', none)).toBe('cpu');
    expect(none.asked).toEqual([GPU, NODE, WASM]);
    expect(tf.getBackend()).toBe('cpu');
  });

  it("'tensorflow' takes either native package and never falls back to wasm or cpu", async () => {
    const node = standInImporter([NODE, WASM]);
    expect(await selectBackend('tensorflow', node)).toBe(STAND_IN_NAME);
    expect(node.asked).toEqual([GPU, NODE]);
    await selectBackend('cpu');
    const none = standInImporter([WASM]);
    await expect(selectBackend('tensorflow', none)).rejects.toThrow(
      /backend 'tensorflow' is not available: node-gpu: Cannot find package '@tensorflow\/tfjs-node-gpu'; node: Cannot find package '@tensorflow\/tfjs-node'\. Install @tensorflow\/tfjs-node-gpu or @tensorflow\/tfjs-node/,
    );
    expect(none.asked).toEqual([GPU, NODE]);
    expect(tf.getBackend()).toBe('cpu');
  });

  it('says what to install when a forced native backend is missing, and which failed', async () => {
    await expect(selectBackend('node', standInImporter([]))).rejects.toThrow(/backend 'node' is not available: node: Cannot find package '@tensorflow\/tfjs-node'\. Install @tensorflow\/tfjs-node \(/);
    await expect(selectBackend('wasm', standInImporter([]))).rejects.toThrow(/backend 'wasm' is not available: wasm: Cannot find package/);
  });
});

describe("tfjs's cpu banner", () => {
  /** A fresh cpu backend instance: its banner fires on the first tensor it stores. */
  async function freshCpu(): Promise<void> {
    const factory = tf.findBackendFactory('cpu');
    if (factory === null) throw new Error('no cpu backend');
    registerStandInNative();
    await tf.setBackend(STAND_IN_NAME); // away from cpu, so cpu can be removed
    tf.removeBackend('cpu');
    tf.registerBackend('cpu', factory, 1);
  }

  const banners = (warn: { mock: { calls: unknown[][] } }) =>
    warn.mock.calls.filter(([message]) => String(message).includes('running TensorFlow.js in Node.js')).length;

  it('is not printed when cpu is what selectBackend chose (and is, when tfjs picks cpu itself)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await freshCpu();
      await tf.setBackend('cpu');
      tf.tidy(() => tf.scalar(1).dataSync());
      expect(banners(warn)).toBe(1); // the control: tfjs's own choice prints it

      await freshCpu();
      await selectBackend('cpu');
      tf.tidy(() => tf.scalar(1).dataSync());
      expect(banners(warn)).toBe(1);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('the transformer on a native backend without our custom kernels (stand-in)', () => {
  afterAll(async () => {
    await selectBackend('cpu');
  });

  const CONFIG = { vocabSize: 30, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32, maxContext: 16 };
  const TOKENS = [
    [1, 7, 9, 12, 20, 8, 15, 22, 11, 9],
    [1, 14, 6, 6, 29, 17, 10, 8, 21, 13],
  ];

  /** Loss and gradients of one forward + backward, and next-token logits from prefill. */
  async function step(): Promise<{ loss: number; grads: Record<string, Float32Array>; prefill: Float32Array }> {
    const model = new Transformer(CONFIG, { seed: 4 });
    const tokens = tf.tensor2d(TOKENS, [2, 10], 'int32');
    const vars = Object.values(model.params);
    const { value, grads } = tf.variableGrads(() => {
      const s = model.logProbsOf(tokens);
      return tf.addN([tf.neg(tf.mean(s.logProbs)), tf.mul(0.1, tf.mean(s.entropy)), tf.mean(tf.square(s.values))]) as tf.Scalar;
    }, vars);
    const out = {
      loss: value.dataSync()[0]!,
      // Keyed by parameter name: variable names are numbered across models.
      grads: Object.fromEntries(Object.entries(model.params).map(([name, v]) => [name, grads[v.name]!.dataSync() as Float32Array])),
      prefill: (await model.prefill([undefined, undefined], TOKENS)).logits,
    };
    tf.dispose([tokens, value, ...Object.values(grads)]);
    model.dispose();
    return out;
  }

  it('trains and prefills as on cpu, through the generic paths', async () => {
    await selectBackend('cpu');
    const onCpu = await step();
    expect(await selectBackend('tensorflow', standInImporter([NODE]))).toBe(STAND_IN_NAME);
    expect(tf.getKernel('ActorgymSplitHeads', STAND_IN_NAME)).toBeUndefined();
    const onNative = await step();
    expect(tf.getKernel('ActorgymSplitHeads', STAND_IN_NAME)).toBeUndefined();
    expect(onNative.loss).toBeCloseTo(onCpu.loss, 5);
    expect(Object.keys(onNative.grads).sort()).toEqual(Object.keys(onCpu.grads).sort());
    for (const [name, g] of Object.entries(onCpu.grads)) {
      const other = onNative.grads[name]!;
      let diff = 0;
      let scale = 1e-8;
      for (let i = 0; i < g.length; i++) {
        diff = Math.max(diff, Math.abs(g[i]! - other[i]!));
        scale = Math.max(scale, Math.abs(g[i]!));
      }
      expect(diff / scale, name).toBeLessThan(1e-4);
    }
    let diff = 0;
    for (let i = 0; i < onCpu.prefill.length; i++) diff = Math.max(diff, Math.abs(onCpu.prefill[i]! - onNative.prefill[i]!));
    expect(diff).toBeLessThan(1e-4);
  });
});
