import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';

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

  it('says what to install when a forced native backend is missing', async () => {
    let nativeInstalled = true;
    try {
      await import(['@tensorflow', 'tfjs-node'].join('/'));
    } catch {
      nativeInstalled = false;
    }
    if (nativeInstalled) return;
    await expect(selectBackend('node')).rejects.toThrow(/@tensorflow\/tfjs-node/);
    await expect(selectBackend('tensorflow')).rejects.toThrow(/not available/);
  });

  it('rejects an unknown preference', async () => {
    await expect(selectBackend('gpu' as never)).rejects.toThrow(/unknown backend/);
  });
});
