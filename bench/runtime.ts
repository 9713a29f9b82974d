/**
 * Runtime benchmark (issue 2): BabyAI with the random agent, 64 concurrent episodes, env steps/s
 * in-process, against `actorgym serve` over WebSocket, and against the same server's AgentGym
 * HTTP endpoint (request per step, keep-alive); then the actor runtime's overhead per step, on a
 * no-op env and agent, against a bare async loop doing the same calls.
 */
import { createRolloutSystem } from '../actors/rollout-system.ts';
import type { Env, EnvDefinition } from '../envs/contract.ts';
import { getEnv } from '../envs/index.ts';
import { agentGymHttpDefinition, agentGymTaskOrder } from '../envs/remote/agentgym-http-env.ts';
import { remoteEnvDefinition } from '../envs/remote/ws-client.ts';
import type { Policy } from '../policy/policy.ts';
import { table } from '../cli/output.ts';
import { median, repeat, startChildServer } from './stats.ts';

export interface RuntimeBenchOptions {
  readonly runs?: number;
  readonly episodes?: number;
  readonly concurrency?: number;
}

export async function runRuntimeBench(options: RuntimeBenchOptions = {}): Promise<void> {
  const runs = options.runs ?? 5;
  const episodes = options.episodes ?? 512;
  const concurrency = options.concurrency ?? 64;
  const babyai = getEnv('babyai');
  const stepsPerSecond = async (env: EnvDefinition) => {
    const summary = await createRolloutSystem({ env, agent: 'random', split: 'train', episodes, concurrency, seed: 1 }).run();
    if (summary.outcomes.aborted > 0) throw new Error(`${summary.outcomes.aborted} episodes aborted during the benchmark`);
    return summary.stepsPerSecond;
  };

  const server = await startChildServer(['babyai', '--port', '0', '--agentgym-http', '0'], 2);
  try {
    const [wsUrl, httpUrl] = server.urls as [string, string];
    const remote = await remoteEnvDefinition(wsUrl, 'babyai');
    const order = agentGymTaskOrder(babyai);
    const http = agentGymHttpDefinition(httpUrl, {
      spec: babyai.spec,
      flavor: 'babyai',
      tasks: { train: babyai.tasks('train'), test: babyai.tasks('test') },
      taskIndex: (taskId) => {
        const index = order.dataIdxOf(taskId);
        if (index === undefined) throw new Error(`task ${taskId} has no AgentGym data_idx`);
        return index;
      },
    });
    // Three warm-up runs each (measured: steps/s settles after two or three), so every side,
    // the server process included, is measured after JIT.
    const measure = async (env: EnvDefinition) => {
      for (let i = 0; i < 3; i++) await stepsPerSecond(env);
      return median(await repeat(runs, () => stepsPerSecond(env)));
    };
    const local = await measure(babyai);
    const ws = await measure(remote);
    const rest = await measure(http);
    await (remote as { close?: () => Promise<void> }).close?.();
    console.log(
      `BabyAI train split, random agent, ${concurrency} concurrent episodes, ${episodes} episodes a run, ` +
        `median of ${runs} runs after three warm-up runs; the servers run in a child process\n`,
    );
    console.log(
      table([
        ['transport', 'env steps/s', 'vs HTTP'],
        ['in-process', local.toFixed(0), `${(local / rest).toFixed(2)}×`],
        ['WebSocket (actorgym serve)', ws.toFixed(0), `${(ws / rest).toFixed(2)}×`],
        ['HTTP request per step (AgentGym shape)', rest.toFixed(0), '1.00×'],
      ]),
    );
  } finally {
    await server.stop();
  }

  const overhead = await measureOverhead(runs, concurrency);
  console.log(`\nRuntime overhead, no-op env and agent, ${concurrency} concurrent episodes of ${NOOP_LENGTH} steps, median of ${runs} runs\n`);
  console.log(
    table([
      ['loop', 'µs per step'],
      ['bare async loop', overhead.bare.toFixed(2)],
      ['actor runtime (episode machines, agent/env actors, events)', overhead.runtime.toFixed(2)],
      ['overhead', (overhead.runtime - overhead.bare).toFixed(2)],
    ]),
  );
}

const NOOP_LENGTH = 50;
const noopSpec = { id: 'noop', description: 'no-op', defaultHorizon: 1000, splits: { train: 0, test: 64 }, maxReward: 1 };
const noopInfo = { availableActions: ['a'] };

class NoopEnv implements Env {
  readonly spec = noopSpec;
  private steps = 0;
  async reset() {
    this.steps = 0;
    return { observation: 'o', info: noopInfo };
  }
  async step() {
    this.steps += 1;
    const done = this.steps >= NOOP_LENGTH;
    return { observation: 'o', reward: done ? 1 : 0, terminated: done, truncated: false, info: noopInfo };
  }
  async close() {}
}

const noopPolicy: Policy = {
  name: 'noop',
  version: 0,
  act: async (batch) => batch.map(() => ({ action: 'a' })),
  release: () => undefined,
};

export async function measureOverhead(runs: number, concurrency: number) {
  const episodes = concurrency * 20;
  const definition: EnvDefinition = {
    spec: noopSpec,
    tasks: () => Array.from({ length: concurrency }, (_, i) => `t${i}`),
    make: () => new NoopEnv(),
  };
  const bare = async () => {
    const start = performance.now();
    let steps = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        for (let e = worker; e < episodes; e += concurrency) {
          const env = new NoopEnv();
          const first = await env.reset();
          let observation = first.observation;
          for (let turn = 0; ; turn++) {
            const [decision] = await noopPolicy.act([{ episodeId: `${e}`, turn, observation, seed: e }]);
            const result = await env.step();
            observation = result.observation + (decision?.action ?? '');
            steps += 1;
            if (result.terminated) break;
          }
        }
      }),
    );
    return ((performance.now() - start) * 1000) / steps;
  };
  const runtime = async () => {
    const start = performance.now();
    const summary = await createRolloutSystem({ env: definition, agent: noopPolicy, episodes, concurrency }).run();
    return ((performance.now() - start) * 1000) / (summary.meanTurns * summary.episodes);
  };
  await bare();
  await runtime();
  // Alternated, so that load from other processes on a shared machine falls on both loops alike.
  const bareRuns: number[] = [];
  const runtimeRuns: number[] = [];
  for (let i = 0; i < runs; i++) {
    bareRuns.push(await bare());
    runtimeRuns.push(await runtime());
  }
  return { bare: median(bareRuns), runtime: median(runtimeRuns) };
}
