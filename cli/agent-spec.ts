import type { AgentSpec } from '../actors/rollout-system.ts';
import { loadCheckpointAgent } from '../actors/training/checkpoint-agent.ts';

const AGENTS = 'random, oracle, checkpoint:DIR';

/**
 * Turns `--agent` into what the rollout system takes. `checkpoint:DIR` loads a trained agent
 * (a run directory or its checkpoint/), on the best available tfjs backend.
 */
export async function resolveAgent(text: string): Promise<AgentSpec> {
  if (text === 'random' || text === 'oracle') return text;
  if (text.startsWith('checkpoint:')) {
    const dir = text.slice('checkpoint:'.length);
    if (dir === '') throw new Error('checkpoint agent needs a directory: --agent checkpoint:DIR');
    return (await loadCheckpointAgent(dir)).policy;
  }
  throw new Error(`unknown agent "${text}"; known agents: ${AGENTS}`);
}
