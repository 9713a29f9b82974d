/**
 * Runtime benchmark (issue 2): BabyAI with the random agent, 64 concurrent episodes, env steps/s
 * in-process, against `actorgym serve` over WebSocket, and against the same server's AgentGym
 * HTTP endpoint (request per step, keep-alive); each also as a bare loop without the actor runtime
 * (bench/bare-rollout.ts), so the runtime's share of a real step shows next to the transport's.
 * Then the actor runtime's overhead per step, on a no-op env and agent, against a bare async loop
 * doing the same calls.
 */
import { createRolloutSystem } from '../actors/rollout-system.ts';
import type { Env, EnvDefinition } from '../envs/contract.ts';
import { getEnv } from '../envs/index.ts';
import { agentGymHttpDefinition, agentGymTaskOrder } from '../transport/remote/agentgym-http-env.ts';
import { remoteEnvDefinition } from '../transport/remote/ws-client.ts';
import type { Policy } from '../policy/policy.ts';
import { table } from '../charts/text-table.ts';
import { bareRollout } from './bare-rollout.ts';
import { median, processCpuMicros, startChildServer } from './stats.ts';

export interface RuntimeBenchOptions {
  readonly runs?: number;
  readonly episodes?: number;
  readonly concurrency?: number;
}

interface TransportRun {
  readonly stepsPerSecond: number;
  /** CPU µs per env step in this process (the client: runtime, agent, and the transport's client side). */
  readonly clientMicros: number;
  /** CPU µs per env step in the server process (env and the transport's server side). */
  readonly serverMicros: number | undefined;
}

export async function runRuntimeBench(options: RuntimeBenchOptions = {}): Promise<void> {
  const runs = options.runs ?? 5;
  const episodes = options.episodes ?? 512;
  const concurrency = options.concurrency ?? 64;
  const babyai = getEnv('babyai');
  /** One run: steps/s, and CPU µs per env step on this side (client) and in the server process. */
  const once = async (play: () => Promise<{ steps: number; seconds: number }>, serverPid?: number): Promise<TransportRun> => {
    const serverBefore = serverPid === undefined ? undefined : processCpuMicros(serverPid);
    const clientBefore = process.cpuUsage();
    const { steps, seconds } = await play();
    const client = process.cpuUsage(clientBefore);
    const serverAfter = serverPid === undefined ? undefined : processCpuMicros(serverPid);
    return {
      stepsPerSecond: steps / seconds,
      clientMicros: (client.user + client.system) / steps,
      serverMicros: serverBefore === undefined || serverAfter === undefined ? undefined : (serverAfter - serverBefore) / steps,
    };
  };
  const viaRuntime = (env: EnvDefinition) => async () => {
    const summary = await createRolloutSystem({ env, agent: 'random', split: 'train', episodes, concurrency, seed: 1 }).run();
    if (summary.outcomes.aborted > 0) throw new Error(`${summary.outcomes.aborted} episodes aborted during the benchmark`);
    return { steps: summary.meanTurns * summary.episodes, seconds: summary.wallSeconds };
  };
  const viaBareLoop = (env: EnvDefinition) => () =>
    bareRollout(env, { split: 'train', episodes, concurrency, seed: 1, horizon: babyai.spec.defaultHorizon });

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
    // the server process included, is measured after JIT. The measured runs then take turns
    // (in-process, WebSocket, HTTP, in-process, …): this machine's speed drifts by tens of per cent
    // over minutes, and runs measured in blocks would put that drift into the ratios.
    // The bare loops play the same episodes without the actor runtime: the gap to them is the
    // runtime's share of each step.
    const transports = [
      { name: 'in-process', play: viaRuntime(babyai) },
      { name: 'WebSocket (actorgym serve)', play: viaRuntime(remote), serverPid: server.child.pid },
      { name: 'HTTP request per step (AgentGym shape)', play: viaRuntime(http), serverPid: server.child.pid },
      { name: 'in-process, bare loop (no actors)', play: viaBareLoop(babyai) },
      { name: 'WebSocket, bare loop (no actors)', play: viaBareLoop(remote), serverPid: server.child.pid },
      { name: 'HTTP, bare loop (no actors)', play: viaBareLoop(http), serverPid: server.child.pid },
    ];
    for (const { play, serverPid } of transports) for (let i = 0; i < 3; i++) await once(play, serverPid);
    const rounds: TransportRun[][] = [];
    for (let i = 0; i < runs; i++) {
      const round: TransportRun[] = [];
      for (const { play, serverPid } of transports) round.push(await once(play, serverPid));
      rounds.push(round);
    }
    const summarize = (at: number) => {
      const results = rounds.map((round) => round[at] as TransportRun);
      const server = results.map((r) => r.serverMicros).filter((v) => v !== undefined);
      return {
        stepsPerSecond: median(results.map((r) => r.stepsPerSecond)),
        clientMicros: median(results.map((r) => r.clientMicros)),
        serverMicros: server.length > 0 ? median(server) : undefined,
      };
    };
    const results = transports.map((_, at) => summarize(at));
    const [local, ws, rest] = results as [TransportRun, TransportRun, TransportRun];
    // The ratio within each round, where both transports ran within a minute of each other.
    const pairedAt = (a: number, b: number) =>
      rounds.map((round) => (round[a] as TransportRun).stepsPerSecond / (round[b] as TransportRun).stepsPerSecond);
    const paired = pairedAt(1, 2);
    const pairedBare = pairedAt(4, 5);
    await (remote as { close?: () => Promise<void> }).close?.();
    console.log(
      `BabyAI train split, random agent, ${concurrency} concurrent episodes, ${episodes} episodes a run, ` +
        `median of ${runs} rounds (one run of each transport per round, in turn) after three warm-up runs each; ` +
        `the servers run in a child process. CPU columns: ` +
        `user + system time per env step of this (client) process and of the server process; a side near ` +
        `1e6 / (steps/s) µs is saturated and sets the pace\n`,
    );
    const cpu = (micros: number | undefined) => (micros === undefined ? 'n/a' : micros.toFixed(1));
    console.log(
      table([
        ['transport', 'env steps/s', 'vs HTTP', 'wall µs/step', 'client CPU µs/step', 'server CPU µs/step'],
        ...transports.map(({ name }, at) => {
          const r = results[at] as TransportRun;
          return [
            name,
            r.stepsPerSecond.toFixed(0),
            `${(r.stepsPerSecond / rest.stepsPerSecond).toFixed(2)}×`,
            (1e6 / r.stepsPerSecond).toFixed(1),
            cpu(r.clientMicros),
            cpu(r.serverMicros),
          ];
        }),
      ]),
    );
    const spread = (ratios: readonly number[]) =>
      `median ${median(ratios).toFixed(2)}× (${[...ratios].sort((a, b) => a - b).map((r) => `${r.toFixed(2)}×`).join(', ')})`;
    console.log(`\nWebSocket / HTTP within each round: ${spread(paired)}`);
    console.log(`The same without the actor runtime (bare loops): ${spread(pairedBare)}`);
    printRatioBound(local, ws, rest);
  } finally {
    await server.stop();
  }

  const overhead = await measureOverhead(runs, concurrency);
  console.log(`\nRuntime overhead, no-op env and agent, ${concurrency} concurrent episodes of ${NOOP_LENGTH} steps, median of ${runs} runs\n`);
  console.log(
    table([
      ['loop', 'wall µs per step', 'CPU µs per step'],
      ['bare async loop', overhead.bare.toFixed(2), overhead.bareCpu.toFixed(2)],
      ['actor runtime (episode machines, agent/env actors, events)', overhead.runtime.toFixed(2), overhead.runtimeCpu.toFixed(2)],
      ['overhead', (overhead.runtime - overhead.bare).toFixed(2), (overhead.runtimeCpu - overhead.bareCpu).toFixed(2)],
    ]),
  );
}

/**
 * Client and server run in parallel, so a transport's pace is set by its busier side. For
 * WebSocket to reach 3× HTTP, each side must spend under a third of HTTP's wall time per step.
 */
function printRatioBound(local: TransportRun, ws: TransportRun, http: TransportRun): void {
  const budget = 1e6 / http.stepsPerSecond / 3;
  const server = ws.serverMicros === undefined ? 'n/a' : `${ws.serverMicros.toFixed(1)} µs`;
  console.log(
    `\n3× HTTP means ${budget.toFixed(1)} µs of wall time per step. Over WebSocket the client spends ` +
      `${ws.clientMicros.toFixed(1)} µs of CPU per step and the server ${server}; in-process, the runtime ` +
      `and the env together spend ${local.clientMicros.toFixed(1)} µs. Each side must fit in the ${budget.toFixed(1)} µs.`,
  );
}

/** Steps per no-op episode; shorter episodes weigh the per-episode costs (actor start, ledger) more. */
const NOOP_LENGTH = 50;
const noopSpec = { id: 'noop', description: 'no-op', defaultHorizon: 1000, splits: { train: 0, test: 64 }, maxReward: 1 };
const noopInfo = { availableActions: ['a'] };

class NoopEnv implements Env {
  readonly spec = noopSpec;
  private steps = 0;
  constructor(private readonly length: number) {}
  async reset() {
    this.steps = 0;
    return { observation: 'o', info: noopInfo };
  }
  async step() {
    this.steps += 1;
    const done = this.steps >= this.length;
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

/** Medians over the alternating runs: wall µs per env step, and this process's CPU µs per env step. */
export interface OverheadMeasure {
  readonly bare: number;
  readonly runtime: number;
  /** CPU time (user + system) per step: unlike wall time it does not count waiting for a core another job holds. */
  readonly bareCpu: number;
  readonly runtimeCpu: number;
}

export async function measureOverhead(runs: number, concurrency: number, length = NOOP_LENGTH): Promise<OverheadMeasure> {
  const episodes = concurrency * 20;
  const definition: EnvDefinition = {
    spec: noopSpec,
    tasks: () => Array.from({ length: concurrency }, (_, i) => `t${i}`),
    make: () => new NoopEnv(length),
  };
  /** Times one run of `play` (which returns the steps it took): wall and CPU µs per step. */
  const timed = async (play: () => Promise<number>) => {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const steps = await play();
    const used = process.cpuUsage(cpu);
    return { wall: ((performance.now() - start) * 1000) / steps, cpu: (used.user + used.system) / steps };
  };
  const bare = () => timed(async () => {
    let steps = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        for (let e = worker; e < episodes; e += concurrency) {
          const env = new NoopEnv(length);
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
    return steps;
  });
  const runtime = () => timed(async () => {
    const summary = await createRolloutSystem({ env: definition, agent: noopPolicy, episodes, concurrency }).run();
    return summary.meanTurns * summary.episodes;
  });
  await bare();
  await runtime();
  // Alternated, so that load from other processes on a shared machine falls on both loops alike.
  const bareRuns: { wall: number; cpu: number }[] = [];
  const runtimeRuns: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < runs; i++) {
    bareRuns.push(await bare());
    runtimeRuns.push(await runtime());
  }
  return {
    bare: median(bareRuns.map((r) => r.wall)),
    runtime: median(runtimeRuns.map((r) => r.wall)),
    bareCpu: median(bareRuns.map((r) => r.cpu)),
    runtimeCpu: median(runtimeRuns.map((r) => r.cpu)),
  };
}
