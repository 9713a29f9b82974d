import type { AgentSpec } from '../actors/rollout-system.ts';

const AGENTS = 'random, oracle';

/** Turns `--agent` into what the rollout system takes; `checkpoint:DIR` arrives with the learner. */
export async function resolveAgent(text: string): Promise<AgentSpec> {
  if (text === 'random' || text === 'oracle') return text;
  throw new Error(`unknown agent "${text}"; known agents: ${AGENTS}`);
}
