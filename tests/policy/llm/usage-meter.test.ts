import { describe, expect, it } from 'vitest';
import { percentile, UsageMeter } from '../../../policy/llm/usage-meter.ts';

const reply = (latencyMs: number, retries = 0) => ({ content: '', promptTokens: 3, completionTokens: 2, latencyMs, retries });

describe('UsageMeter', () => {
  it('sums calls, failures, retries and tokens, and keeps the most attempts in flight', () => {
    const meter = new UsageMeter();
    meter.attemptStarted();
    meter.attemptStarted();
    meter.attemptEnded();
    meter.attemptStarted();
    meter.attemptEnded();
    meter.attemptEnded();
    meter.succeeded(reply(10, 1));
    meter.succeeded(reply(30));
    meter.failed(4);
    expect(meter.usage()).toEqual({ calls: 3, failedCalls: 1, retries: 5, promptTokens: 6, completionTokens: 4, latencyP50Ms: 10, latencyP95Ms: 30, maxInFlight: 2 });
  });

  it('reports 0 latency when no call succeeded', () => {
    const meter = new UsageMeter();
    meter.failed(0);
    expect(meter.usage()).toMatchObject({ latencyP50Ms: 0, latencyP95Ms: 0 });
  });

  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.95)).toBe(95);
    expect(percentile([7], 0.95)).toBe(7);
    expect(percentile([], 0.5)).toBe(0);
  });
});
