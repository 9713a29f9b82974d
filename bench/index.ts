/**
 * `npm run bench` / `actorgym bench [NAME]`: each benchmark prints a side-by-side table. No
 * assertions: these machines are shared, so read medians and ratios from one run.
 */
export interface Benchmark {
  readonly name: string;
  readonly description: string;
  /** Hours rather than minutes: `npm run bench` without a name skips it; name it to run it. */
  readonly long?: boolean;
  run(): Promise<void>;
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'runtime',
    description: 'BabyAI env steps/s in-process, over WebSocket and over AgentGym HTTP; runtime overhead per step',
    run: async () => (await import('./runtime.ts')).runRuntimeBench(),
  },
  {
    name: 'episode-machine',
    description: "xstate's own cost per env step: a bare two-transition machine vs the episode machine",
    run: async () => (await import('./episode-machine.ts')).runEpisodeMachineBench(),
  },
  {
    name: 'transformer-step',
    description: 'learner tokens/s of the transformer on this backend vs PyTorch; decoding at batch 64 vs 1',
    run: async () => (await import('./transformer-step.ts')).runTransformerStepBench(),
  },
  {
    name: 'env-steps',
    description: 'env steps/s of every registered env, in-process, random agent: bare env loop vs actor runtime',
    run: async () => (await import('./env-steps.ts')).runEnvStepsBench(),
  },
  {
    name: 'rollout-memory',
    description: 'peak live heap of an 8,192-episode BabyAI rollout (what a long run keeps in memory)',
    run: async () => (await import('./rollout-memory.ts')).runRolloutMemoryBench(),
  },
  {
    name: 'learner-step',
    description: 'a GRPO learner step on BabyAI (npm start config): share of rollout vs learning, learner tokens/s',
    run: async () => (await import('./learner-step.ts')).runLearnerStepBench(),
  },
  {
    name: 'dashboard-overhead',
    description: 'training and rollout throughput with no dashboard, a WebSocket client, and a Chromium page',
    run: async () => (await import('./dashboard-overhead.ts')).runDashboardOverheadBench(),
  },
  {
    name: 'llm-rollout',
    description: 'LLM-agent rollouts against a long-tailed latency server: per-episode actors vs lock-step rounds (episodes/s, endpoint utilization)',
    run: async () => (await import('./llm-rollout.ts')).runLlmRolloutBench(),
  },
  {
    name: 'startup',
    description: 'CLI start-up: --help and envs from the compiled package vs the tsx checkout vs bare node (wall ms, peak RSS)',
    run: async () => (await import('./startup.ts')).runStartupBench(),
  },
  {
    name: 'web',
    description: 'the web env with 16 and 32 envs acting at once: memory per env (this process + Chromium), reset and step p50/p95, steps/s',
    run: async () => {
      await (await import('./web.ts')).runWebBench([]);
    },
  },
  {
    name: 'frozen-server',
    description: 'a rollout on 3 env servers with one SIGSTOPped: extra wall time in call deadlines, when the pool marks it suspect and drops it',
    run: async () => (await import('./frozen-server.ts')).runFrozenServerBench(),
  },
  {
    name: 'chaos',
    description: 'rollouts and a training run on 3 env servers SIGKILLed and restarted (>= 100 kills): every slot once, aborted share, success vs undisturbed',
    run: async () => (await import('./chaos.ts')).runChaosBench(),
  },
  {
    name: 'rollout-service',
    description: 'the rollout service (issue 38): 256 token-exact episodes at concurrency 64 on 2 env servers, one SIGKILLed midway: every episode once; service vs `rollout --format tokens` episodes/s',
    run: async () => (await import('./rollout-service.ts')).runRolloutServiceBench(),
  },
  {
    name: 'server-flood',
    description: 'actorgym serve under attack (issue 40): 2,000 idle unauthenticated sockets from one address and over 127/8 (honest WS and HTTP clients finished), a 64-connection frame flood (/readyz latency), 64 never-reading peers (server RSS vs its 128 MiB budget)',
    run: async () => (await import('./server-flood.ts')).runServerFloodBench(),
  },
  {
    name: 'event-learner-flood',
    description: 'the event and learner servers under a 64-connection frame flood, with and without their --frame-budget (/readyz, server CPU, an honest observer and worker)',
    run: async () => (await import('./event-learner-flood.ts')).runEventLearnerFloodBench(),
  },
  {
    name: 'agentgym-http-noread',
    description: 'AgentGym HTTP clients that pipeline requests and never read the replies: server RSS against the buffered-bytes budget',
    run: async () => (await import('./agentgym-http-noread.ts')).runAgentGymHttpNoReadBench(),
  },
  {
    name: 'honest-frame-rates',
    description: 'frames honest clients send the learner (workers collecting a step) and the event server (observers): what the frame budgets are sized from',
    run: async () => (await import('./honest-frame-rates.ts')).runHonestFrameRatesBench(),
  },
  {
    name: 'distributed',
    long: true,
    description: 'BabyAI GRPO at one time budget: train in one process vs learner + 2 workers, sync vs --async K=1/2, plain and behind a latency-bound policy (steps/h, test success, worker idle); weight broadcast bytes and ms (defaults: 3 seeds × 12 arms × 5 min ≈ 3.5 h; DIST_BENCH_* to size it)',
    run: async () => {
      const { runDistributedBench, distributedOptionsFromEnv } = await import('./distributed.ts');
      await runDistributedBench(distributedOptionsFromEnv());
    },
  },
  {
    name: 'hf',
    description: 'a ~10M Qwen2-shaped model, TF.js (wasm) vs PyTorch on 1 thread: LoRA and full training tokens/s, KV-cache decoding at batch 1/16/64 (hf-full: also ~50M and Qwen2.5-0.5B-shaped, load time and peak RSS)',
    run: async () => (await import('./hf-speed.ts')).runHfSpeedBench(),
  },
  {
    name: 'matmul-ceiling',
    description: 'float32 matrix products, TF.js (wasm) vs PyTorch on 1 thread: the ceiling of the hf training ratio on this backend',
    run: async () => (await import('./matmul-ceiling.ts')).runMatmulCeilingBench(),
  },
  {
    name: 'hf-full',
    description: 'the hf benchmark on all three models (~10M, ~50M, Qwen2.5-0.5B-shaped) with the 0.5B file\'s load time and peak RSS: 10–16 min',
    run: async () => (await import('./hf-speed.ts')).runHfSpeedBench({ full: true }),
  },
];
