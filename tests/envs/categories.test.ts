/** Task categories (issue 23): what `actorgym eval` reports Avg@n and Pass@k by. */
import { describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { categoryCounts, getEnv, listEnvs, orderCategories, type Split } from '../../envs/index.ts';
import { resolveEnvDefinition } from '../../transport/resolve-env.ts';
import { allQuestions, searchCategoryOf } from '../../envs/search/index.ts';
import { sciworldCategoryOf } from '../../envs/sciworld/index.ts';
import { textcraftCategoryOf } from '../../envs/textcraft/index.ts';
import { babyaiDefinition } from '../../envs/babyai/index.ts';

const counts = (id: string, split: Split) => {
  const definition = listEnvs().find((d) => d.spec.id === id);
  if (!definition) throw new Error(`no env ${id}`);
  return Object.fromEntries(categoryCounts(definition, split).map(({ name, tasks }) => [name, tasks]));
};

describe('task categories', () => {
  it('every task of every split of every env has a category', () => {
    for (const definition of listEnvs()) {
      expect(definition.categoryOf, definition.spec.id).toBeTypeOf('function');
      for (const split of ['train', 'test'] as const) {
        for (const taskId of definition.tasks(split)) expect(definition.categoryOf?.(taskId)).toMatch(/\S/);
      }
    }
  });

  it('splits the test sets as the paper counts them, in the paper\'s order', () => {
    // AgentGym's BabyAI test set: 90 items, GoTo 55, Pickup 15, then 5 of each other family.
    expect(Object.entries(counts('babyai', 'test'))).toEqual([
      ['GoTo', 55], ['Pickup', 15], ['ActionObjDoor', 5], ['FindObjS7', 5], ['OneRoomS20', 5], ['SynthLoc', 5],
    ]);
    expect(Object.entries(counts('textcraft', 'test'))).toEqual([['depth 1', 31], ['depth 2', 41], ['depth 3', 25], ['depth 4', 3]]);
    expect(Object.entries(counts('sciworld', 'test'))).toEqual([
      ['Measure', 53], ['Test-Conductivity', 83], ['Find', 44], ['Chem-Mix', 5], ['Lifespan', 15],
    ]);
    // Our generated questions (the paper's Deep Search sets are not hop-labelled).
    expect(Object.entries(counts('search', 'test'))).toEqual([['1-hop', 80], ['2-hop', 70], ['3-hop', 50]]);
  });

  it('reads the category from the task id alone', () => {
    expect(babyaiDefinition.categoryOf?.('GoToRedBallGrey/0')).toBe('GoTo');
    expect(babyaiDefinition.categoryOf?.('UnblockPickup/7')).toBe('Pickup');
    expect(sciworldCategoryOf('test-conductivity/12')).toBe('Test-Conductivity');
    expect(textcraftCategoryOf('oak_planks')).toBe('depth 1');
    expect(textcraftCategoryOf('crafting_table')).toBe('depth 2'); // log → planks → table
    expect(searchCategoryOf('capital-currency/FRA')).toBe('2-hop');
  });

  it('gives every generated search question its own hop count', () => {
    for (const question of allQuestions()) expect(searchCategoryOf(question.id)).toBe(`${question.hops}-hop`);
  });

  it('rejects ids that are not tasks with TASK_UNKNOWN', () => {
    for (const [categoryOf, id] of [
      [searchCategoryOf, 'capitalX'],
      [searchCategoryOf, 'nope/FRA'],
      [sciworldCategoryOf, 'boil/1'],
      [textcraftCategoryOf, 'dirt'],
      [(id: string) => babyaiDefinition.categoryOf?.(id), 'GoToMars/1'],
    ] as const) {
      expect(() => categoryOf(id)).toThrow(expect.objectContaining({ code: 'TASK_UNKNOWN' }));
    }
  });

  it('orders ordinal categories by number and named ones as first listed', () => {
    expect(orderCategories(['3-hop', '1-hop', '10-hop', '2-hop', '1-hop'])).toEqual(['1-hop', '2-hop', '3-hop', '10-hop']);
    expect(orderCategories(['Pickup', 'GoTo', 'Pickup'])).toEqual(['Pickup', 'GoTo']);
  });

  it('a remote env takes its categories and its prompt from the local env of the same id', async () => {
    const server = await startEnvServer({ port: 0, resolveEnv: () => getEnv('babyai') });
    const remote = await resolveEnvDefinition({ env: 'babyai', remote: server.url });
    try {
      expect(remote.categoryOf?.('PickupLoc/3')).toBe('Pickup');
      expect(categoryCounts(remote, 'test')).toEqual(categoryCounts(getEnv('babyai'), 'test'));
      // Issue 35: the env family's LLM prompt travels with its definition, remote or not.
      expect(remote.prompt?.().family).toBe('babyai');
      expect(remote.prompt?.().firstTurn('obs')).toBe(getEnv('babyai').prompt?.().firstTurn('obs'));
    } finally {
      await (remote as { close?: () => Promise<void> }).close?.();
      await server.close();
    }
  });
});
