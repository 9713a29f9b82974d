/** Step 2 of a rollout: the policy the agent actor calls, from the agent spec. */
import type { EnvDefinition, Oracle } from '../../envs/contract.ts';
import { OraclePolicy } from '../../policy/oracle-policy.ts';
import type { Policy } from '../../policy/policy.ts';
import { RandomPolicy } from '../../policy/random-policy.ts';
import type { AgentSpec } from './rollout-options.ts';

export interface RolloutPolicyOptions {
  readonly env: EnvDefinition;
  readonly agent: AgentSpec;
  /** The oracle of the env an episode runs on (`'oracle'` reads env state). */
  readonly oracleOf: (episodeId: string) => Oracle | undefined;
  readonly wrapPolicy?: ((policy: Policy) => Policy) | undefined;
}

/** `'random'` and `'oracle'` become their policies, then `wrapPolicy` wraps the result. */
export function rolloutPolicy({ env, agent, oracleOf, wrapPolicy }: RolloutPolicyOptions): Policy {
  const resolved: Policy = agent === 'random' ? new RandomPolicy() : agent === 'oracle' ? new OraclePolicy(oracleOf) : agent;
  if (agent === 'oracle' && !env.oracle) throw new Error(`env "${env.spec.id}" has no oracle`);
  return wrapPolicy ? wrapPolicy(resolved) : resolved;
}
