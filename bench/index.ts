/**
 * `npm run bench` / `actorgym bench [NAME]`: each benchmark prints a side-by-side table. No
 * assertions: these machines are shared, so read medians and ratios from one run.
 */
export interface Benchmark {
  readonly name: string;
  readonly description: string;
  run(): Promise<void>;
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'runtime',
    description: 'BabyAI env steps/s in-process, over WebSocket and over AgentGym HTTP; runtime overhead per step',
    run: async () => (await import('./runtime.ts')).runRuntimeBench(),
  },
  {
    name: 'transformer-step',
    description: 'learner tokens/s of the transformer on this backend vs PyTorch; decoding at batch 64 vs 1',
    run: async () => (await import('./transformer-step.ts')).runTransformerStepBench(),
  },
];
