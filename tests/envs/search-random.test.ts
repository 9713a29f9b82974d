import { describe, expect, it } from 'vitest';
import { INVALID_MESSAGE, promptFor, searchDefinition, searchTasks } from '../../envs/search/index.ts';
import { RandomPolicy } from '../../policy/random-policy.ts';

const act = async (policy: RandomPolicy, observation: string, seed: number, turn = 0) =>
  (await policy.act([{ episodeId: 'e', turn, observation, seed }]))[0]!.action;

describe('random policy on a tag-grammar env (Deep Search)', () => {
  it('wraps its words in the action tags the observation shows as templates', async () => {
    const policy = new RandomPolicy();
    const onPrompt = new Set<string>();
    const onInvalid = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      onPrompt.add(/^<(\w+)> [a-z ]+ <\/\1>$/.exec(await act(policy, promptFor('What is the capital of France?'), seed))?.[1] ?? 'untagged');
      onInvalid.add(/^<(\w+)> [a-z ]+ <\/\1>$/.exec(await act(policy, INVALID_MESSAGE, seed))?.[1] ?? 'untagged');
    }
    // The prompt shows <think>...</think>, <search>...</search>, <information>...</information>, <answer>...</answer>.
    expect([...onPrompt].sort()).toEqual(['answer', 'information', 'search', 'think']);
    expect([...onInvalid].sort()).toEqual(['answer', 'search']);
  });

  it('leaves observations without templates as before: bare words', async () => {
    const policy = new RandomPolicy();
    for (const observation of ['', '<information>Doc 1(Title: "France") France is a country.</information>', 'You see a red ball.']) {
      for (let seed = 0; seed < 20; seed++) expect(await act(policy, observation, seed)).toMatch(/^[a-z]+( [a-z]+){0,2}$/);
    }
  });

  it('drives search episodes with random searches and answers', async () => {
    const policy = new RandomPolicy();
    const env = searchDefinition.make();
    const kinds = new Map<string, number>();
    for (const [i, taskId] of searchTasks('test').slice(0, 20).entries()) {
      let { observation } = await env.reset({ taskId, seed: i });
      for (let turn = 0; turn < 10; turn++) {
        const r = await env.step(await act(policy, observation, i, turn));
        kinds.set(String(r.info['action']), (kinds.get(String(r.info['action'])) ?? 0) + 1);
        observation = r.observation;
        if (r.terminated) break;
      }
    }
    expect(kinds.get('search')).toBeGreaterThan(10);
    expect(kinds.get('answer')).toBeGreaterThan(10);
    await env.close();
  });
});
