import { describe, expect, it } from 'vitest';
import { craftingTree, parseTaskId, textcraftDefinition, TEST_DEPTH_MIX } from '../../envs/textcraft/index.ts';
import { loadRecipeFile } from '../../envs/textcraft/data.ts';

const tree = craftingTree();
const count = <T>(items: readonly T[]) => items.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<T, number>());

describe('textcraft splits', () => {
  it('has AgentGym\'s sizes, never shares a goal, and only lists craftable goals', () => {
    const test = textcraftDefinition.tasks('test');
    const train = textcraftDefinition.tasks('train');
    expect([test.length, train.length]).toEqual([100, 374]);
    expect(new Set(test).size).toBe(100);
    expect(new Set(train).size).toBe(374);
    expect(test.filter((id) => train.includes(id))).toEqual([]);
    for (const id of [...test, ...train]) {
      expect(parseTaskId(id)).toBe(id);
      expect(tree.minDepth(id)).toBeGreaterThanOrEqual(1);
    }
  });

  it('mixes test goals by crafting depth as AgentGym: 1×31, 2×41, 3×25, 4×3', () => {
    const mix = count(textcraftDefinition.tasks('test').map((id) => tree.minDepth(id)));
    expect(Object.fromEntries(mix)).toEqual({ 1: 31, 2: 41, 3: 25, 4: 3 });
    expect(TEST_DEPTH_MIX).toEqual({ 1: 31, 2: 41, 3: 25, 4: 3 });
  });

  it('is the same list every time (fixed draws over the committed recipes)', async () => {
    const { textcraftTasks } = await import('../../envs/textcraft/tasks.ts');
    expect(textcraftTasks('test')).toBe(textcraftDefinition.tasks('test'));
    expect(textcraftDefinition.tasks('test').slice(0, 3)).toEqual(['blackstone_slab', 'blackstone_stairs', 'blaze_powder']);
  });
});

describe('textcraft determinism', () => {
  it('replays the same episode from the same task id and seed, and reshuffles with another seed', async () => {
    const goal = 'painting';
    const observe = async (seed?: number) => {
      const env = textcraftDefinition.make();
      const r = seed === undefined ? await env.reset({ taskId: goal }) : await env.reset({ taskId: goal, seed });
      const steps = [];
      for (const a of ['get 8 stick', 'get 4 string', 'inventory']) steps.push((await env.step(a)).observation);
      return [r.observation, JSON.stringify(r.info), ...steps];
    };
    expect(await observe(5)).toEqual(await observe(5));
    expect(await observe()).toEqual(await observe(42));
    const [a, b] = [(await observe(5))[0] as string, (await observe(6))[0] as string];
    expect(a).not.toBe(b);
    // Another seed changes the order and the distractors, never the goal or its tree.
    expect(a.split('\n').at(-1)).toBe(b.split('\n').at(-1));
  });
});

describe('textcraft recipe data (Minecraft 1.16: minecraft-data joined with Mojang\'s file facts)', () => {
  it('credits its sources and holds the known recipes', () => {
    const file = loadRecipeFile();
    expect(file.source).toMatch(/^PrismarineJS minecraft-data .*\(MIT\).*mojang-1\.16-side\.json/);
    expect(file.recipes).toHaveLength(635);
    const names = file.recipes.map(([name]) => name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const texts = (item: string) => tree.recipesOf(item).map((r) => r.text);
    // Expected texts: the original's recipe_str (tests/envs/textcraft/fixtures/agentgym-reference.json).
    expect(texts('crafting_table')).toEqual(['craft 1 crafting table using 4 planks']);
    expect(texts('stick')).toEqual(['craft 4 stick using 2 planks', 'craft 1 stick using 2 bamboo']);
    expect(texts('torch')).toEqual(['craft 4 torch using 1 stick, 1 coal']);
    expect(texts('campfire')).toEqual(['craft 1 campfire using 3 logs, 3 stick, 1 coals']);
    // Storage blocks are not unpacked; nuggets make ingots, so the ingot-to-nugget recipe closes a cycle.
    expect(texts('iron_ingot')).toEqual(['craft 1 iron ingot using 9 iron nugget']);
    expect(texts('iron_nugget')).toEqual([]);
  });

  it('gives every goal a depth', () => {
    const depths = count(tree.craftableItems().map((id) => tree.minDepth(id)));
    expect(Object.fromEntries(depths)).toEqual({ 1: 125, 2: 291, 3: 117, 4: 11 });
    expect(tree.minDepth('oak_planks')).toBe(1);
    expect(tree.minDepth('crafting_table')).toBe(2);
    expect(tree.minDepth('planks')).toBe(1);
    expect(tree.minDepth('oak_logs')).toBe(0);
  });
});
