/**
 * The reference step of bench/transformer-step.ts through the learner's own update
 * (learner/update.ts: the clipped policy loss, k3 KL, entropy bonus, gradient clipping
 * and Adam) on one thread, and with half of it in a worker thread (learner/data-parallel.ts).
 * GRPO's loss (no critic), rows of batch 32 × sequence 128 with every token after the first
 * trained and no allowed-token sets (no constraint bias). Old and reference log-probs are inputs
 * (the learner scores them once per learner step, before its updates), so no reference forward
 * is timed. bench/torch_reference.py times the same update in PyTorch (its docstring lists both
 * sides term by term); the first step's loss terms agree to the initialisation's noise.
 */
import { learnerDefaults, type LearnerArgs } from '../learner/args.ts';
import { DataParallelGrads } from '../learner/data-parallel.ts';
import { padRows } from '../learner/minibatch.ts';
import { LearnerOptimizer } from '../learner/optimizer.ts';
import { updateMinibatch } from '../learner/update.ts';
import { paramShapes } from '../policy/transformer/params.ts';
import type { TransformerConfig } from '../policy/transformer/config.ts';
import { Transformer } from '../policy/transformer/transformer.ts';

/** Milliseconds of each timed update (after one warm-up), with `threads` learner threads. */
export async function learnerObjectiveStepMs(config: TransformerConfig, threads: 1 | 2, steps: number, backend: string): Promise<number[]> {
  const model = new Transformer(config, { seed: 1 });
  // As the learner does without a critic: every parameter but the value head (learner/run-models.ts).
  const names = paramShapes(config).map(([name]) => name).filter((name) => !name.startsWith('value.'));
  const optimizer = new LearnerOptimizer(1e-4, names.map((name) => [name, model.params[name]!] as const));
  const args: LearnerArgs = { ...learnerDefaults, algo: 'grpo' };
  const batch = 32;
  const length = config.maxContext;
  const rows = Array.from({ length: batch }, (_, r) => ({ tokens: Array.from({ length }, (_, t) => 6 + ((r * 131 + t * 17) % (config.vocabSize - 6))) }));
  const per = (f: (r: number, t: number) => number) => rows.map((row, r) => Float32Array.from(row.tokens, (_, t) => f(r, t)));
  const fields = {
    mask: per((_, t) => (t > 0 ? 1 : 0)),
    oldLogProbs: per(() => -Math.log(config.vocabSize)),
    advantages: per((r) => (r % 2 === 0 ? 1 : -1)),
    refLogProbs: per(() => -Math.log(config.vocabSize)),
  };
  const parallel = threads === 2 ? await DataParallelGrads.start({ backend, config, names }) : undefined;
  const times: number[] = [];
  try {
    for (let i = 0; i <= steps; i++) {
      const t0 = performance.now();
      if (parallel) await parallel.update(model, optimizer, rows, fields, args);
      else updateMinibatch(model, optimizer, padRows(rows), fields, args);
      if (i > 0) times.push(performance.now() - t0);
    }
  } finally {
    await parallel?.close();
    optimizer.dispose();
    model.dispose();
  }
  return times;
}
