import { filter, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import * as actorgym from '../index.ts';

describe('the package entry point', () => {
  it('lets an app embed a rollout and watch its events', async () => {
    const system = actorgym.createRolloutSystem({ env: actorgym.getEnv('babyai'), agent: 'oracle', episodes: 3, concurrency: 3, seed: 1 });
    const finished = lastValueFrom(system.events.pipe(filter((e) => e.type === 'episode.finished'), toArray()));
    const summary = await system.run();
    expect(summary.successRate).toBe(1);
    expect(await finished).toHaveLength(3);
  });

  it('exposes the servers, remote clients and env registry', () => {
    for (const name of ['startEnvServer', 'startEventServer', 'startAgentGymHttpServer', 'remoteEnvDefinition', 'observeRun', 'checkEnv', 'listEnvs', 'startPolicyServer', 'runEvaluation', 'createLlmPolicy', 'promptFor', 'passAtK', 'poolEnvDefinition']) {
      expect(typeof (actorgym as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
