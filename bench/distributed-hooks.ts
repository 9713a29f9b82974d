/**
 * `bench distributed`'s hooks in its child processes, preloaded before the real `actorgym` entry
 * point (bin/actorgym.js): two bench-only patches, set through the environment, so that no option
 * of the product exists only for a benchmark:
 *
 * - ACTORGYM_BENCH_POLICY_LATENCY_MS=L: every decision call of our transformer policy (one `act`
 *   batch: the episodes that asked together) first waits L ms, as a call to a remote policy
 *   endpoint would (the latency-bound scenario of `bench llm-rollout`, with the model's own
 *   decoding after the wait).
 * - ACTORGYM_BENCH_BUSY_FILE=F: a worker writes to F, after each assignment, how long it has been
 *   collecting (`LocalProducer.produce`) and since when, so the bench can tell its idle time.
 *
 *   ACTORGYM_BENCH_POLICY_LATENCY_MS=1000 node --import ./bench/distributed-hooks.mjs \
 *     bin/actorgym.js worker --learner ws://127.0.0.1:8200
 *
 * The patched classes are the ones the CLI loads: one module instance per file URL.
 */
import { writeFileSync } from 'node:fs';

const latencyMs = Number(process.env.ACTORGYM_BENCH_POLICY_LATENCY_MS ?? 0);
const busyFile = process.env.ACTORGYM_BENCH_BUSY_FILE;

if (latencyMs > 0) {
  const { TransformerPolicy } = await import('../policy/transformer-policy.ts');
  const act = TransformerPolicy.prototype.act;
  TransformerPolicy.prototype.act = async function (this: InstanceType<typeof TransformerPolicy>, batch) {
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    return act.call(this, batch);
  };
}

if (busyFile !== undefined) {
  const { LocalProducer } = await import('../actors/buffer/local-producer.ts');
  const produce = LocalProducer.prototype.produce;
  let busyMs = 0;
  let firstMs: number | undefined;
  let assignments = 0;
  LocalProducer.prototype.produce = async function (this: InstanceType<typeof LocalProducer>, work, offer, signal) {
    const started = performance.now();
    firstMs ??= started;
    try {
      return await produce.call(this, work, offer, signal);
    } finally {
      const now = performance.now();
      busyMs += now - started;
      assignments++;
      writeFileSync(busyFile, JSON.stringify({ busyMs, spanMs: now - firstMs, assignments }));
    }
  };
}
