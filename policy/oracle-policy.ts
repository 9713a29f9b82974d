/**
 * The oracle agent: asks the env's own oracle (which reads the env's state, locally or on the
 * env server) for each episode's next action. It shows what the env allows, not what a model learns.
 */
import type { Oracle } from '../envs/contract.ts';
import type { ActRequest, Decision, Policy, TokenTrajectory } from './policy.ts';

export class OraclePolicy implements Policy {
  readonly name = 'oracle';
  readonly version = 0;

  constructor(private readonly oracleOf: (episodeId: string) => Oracle | undefined) {}

  act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    return Promise.all(
      batch.map(async (request) => {
        const oracle = this.oracleOf(request.episodeId);
        if (!oracle) throw new Error(`no oracle for episode ${request.episodeId}: the env has none`);
        return { action: await oracle.next() };
      }),
    );
  }

  release(_episodeId: string): TokenTrajectory | undefined {
    return undefined;
  }
}
