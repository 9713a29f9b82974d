/**
 * What `--remote agentgym+http://…` resolves to: an env definition on a pool of AgentGym HTTP
 * env servers (the ws pool with HTTP connections, agentgym-http-connection.ts). Task ids are
 * `<env>_<data_idx>` (AgentGym-RL's `item_id`), and the data_idx of each split are chosen so
 * that a task id means the same task as the local env's wherever actorgym knows the server's
 * numbering (docs/agentgym-http.md, "From the command line").
 */
import { EnvError, type EnvDefinition, type EnvSpec, type Split } from '../../envs/contract.ts';
import { call, acquireTarget, releaseTarget } from './agentgym-http-call.ts';
import { connectAgentGymServer, isActorgymBanner, type AgentGymServed } from './agentgym-http-connection.ts';
import { agentGymTaskOrder, DEFAULT_CALL_TIMEOUT_MS, trailingIntegerTaskIndex } from './agentgym-http-env.ts';
import { AGENTGYM_FLAVORS, type AgentGymFlavor } from './agentgym-flavors.ts';
import type { AgentGymRemote } from './agentgym-remote-url.ts';
import { poolEnvDefinition, type PoolEnvDefinition } from './pool-definition.ts';
import type { EnvServerPoolOptions } from './ws-pool.ts';

/** WebShop's defaults (actorgym has no WebShop of its own): AgentGym evaluates on 200 sessions. */
const WEBSHOP_SPEC: EnvSpec = { id: 'webshop', description: 'WebShop (AgentGym server)', defaultHorizon: 15, splits: { train: 0, test: 200 }, maxReward: 1 };

/** data_idx of each split, by the rules of the doc's table: URL choice, else the numbering actorgym knows. */
function splitIndices(envId: string, local: EnvDefinition | undefined, faithful: boolean, remote: AgentGymRemote): Record<'test' | 'train', readonly number[]> {
  if (remote.test !== undefined || remote.train !== undefined) return { test: remote.test ?? [], train: remote.train ?? [] };
  if (local !== undefined && faithful) {
    const order = agentGymTaskOrder(local);
    const indices = (split: 'test' | 'train') => local.tasks(split).map((id) => order.dataIdxOf(id)).filter((n): n is number => n !== undefined);
    return { test: indices('test'), train: indices('train') };
  }
  if (local !== undefined) {
    // A foreign server of a family whose numbering actorgym does not reproduce (SciWorld): ours.
    const { test, train } = local.spec.splits;
    return { test: range(0, test), train: range(test, test + train) };
  }
  if (envId === 'webshop') return { test: range(0, WEBSHOP_SPEC.splits.test), train: [] };
  throw new EnvError('ENV_UNKNOWN', `--remote agentgym+http: actorgym does not know env "${envId}"; give its data_idx in the URL (agentgym+http://host:port?test=0-99&train=100-999)`);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/** The first server's `GET /` answer, or undefined when none answers (the pool then reports why). */
async function firstBanner(urls: readonly string[], timeoutMs: number, token: string | undefined): Promise<unknown> {
  const answers = await Promise.all(
    urls.map(async (url) => {
      const target = acquireTarget(url, token);
      try {
        return await call(target, 'GET', '/', undefined, performance.now() + timeoutMs);
      } catch {
        return undefined;
      } finally {
        releaseTarget(target);
      }
    }),
  );
  return answers.find((answer) => answer !== undefined);
}

/**
 * `envId` on the AgentGym HTTP servers of `remote`. `local` is the registry's env of that id,
 * when there is one: it gives the spec, prompt, categories and (on actorgym's servers, and for
 * families whose AgentGym numbering it reproduces) the task order. `options.token`, when given,
 * goes with every call as `Authorization: Bearer` (`rollout --token`).
 */
export async function agentGymPoolDefinition(
  remote: AgentGymRemote,
  envId: string,
  local: EnvDefinition | undefined,
  options: EnvServerPoolOptions = {},
): Promise<PoolEnvDefinition> {
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const actorgym = isActorgymBanner(await firstBanner(remote.urls, callTimeoutMs, options.token));
  const faithful = local !== undefined && (actorgym || local.agentgymIndex !== undefined);
  const indices = splitIndices(envId, local, faithful, remote);
  // AgentGym's servers number train and test tasks only: actorgym's held-out-template split has no data_idx there.
  const tasks: Readonly<Record<Split, readonly string[]>> = { test: indices.test.map((n) => `${envId}_${n}`), train: indices.train.map((n) => `${envId}_${n}`), 'test-templates': [] };
  const base = local?.spec ?? (envId === 'webshop' ? WEBSHOP_SPEC : { id: envId, description: `${envId} (AgentGym server)`, defaultHorizon: 30, maxReward: 1, splits: { test: 0, train: 0 } });
  const spec: EnvSpec = { ...base, maxReward: 1, splits: { test: tasks.test.length, train: tasks.train.length } };
  const flavor: AgentGymFlavor = (AGENTGYM_FLAVORS as readonly string[]).includes(envId) ? (envId as AgentGymFlavor) : 'generic';
  const served: AgentGymServed = { spec, tasks, envOptions: { flavor, callTimeoutMs, ...(options.token ? { token: options.token } : {}) } };
  const pooled = await poolEnvDefinition(remote.urls, envId, { ...options, connect: (url) => connectAgentGymServer(url, served) });
  if (local === undefined) return pooled;
  const order = agentGymTaskOrder(local);
  const categoryOf = local.categoryOf;
  return {
    ...pooled,
    ...(local.prompt ? { prompt: local.prompt.bind(local) } : {}),
    // A data_idx names a local task only where the numbering is known to be the server's.
    ...(faithful && categoryOf
      ? {
          categoryOf: (taskId: string) => {
            const localId = order.taskIdAt(trailingIntegerTaskIndex(taskId));
            if (localId === undefined) throw new EnvError('TASK_UNKNOWN', `task "${taskId}" is no data_idx of ${envId}`);
            return categoryOf.call(local, localId);
          },
        }
      : {}),
  };
}
