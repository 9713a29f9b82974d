/**
 * Issue 28: TextCraft against AgentGym's own agentenv-textcraft. The expected values come from
 * fixtures/agentgym-reference.json, written by running the original's CraftingTree and
 * TextCraftEnv (agentenv_textcraft/environment.py `step`/`reset`, crafting_tree.py) with
 * fixtures/agentgym-reference.py over its recipe files in code-point order of their names.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { craftingTree } from '../../../envs/textcraft/tree.ts';
import { TextCraftGame } from '../../../envs/textcraft/game.ts';
import { textcraftAgentGymIndex } from '../../../envs/textcraft/agentgym-index.ts';

interface Reference {
  readonly goals: readonly (readonly [string, number])[];
  readonly recipes: Readonly<Record<string, readonly string[]>>;
  readonly tags: readonly string[];
  readonly messages: Readonly<Record<string, string>>;
}

const reference = JSON.parse(readFileSync(new URL('./fixtures/agentgym-reference.json', import.meta.url), 'utf8')) as Reference;
const tree = craftingTree();

function answer(...actions: string[]): string {
  const game = new TextCraftGame(tree, 'crafting_table');
  return actions.map((a) => game.step(a).observation).at(-1) as string;
}

describe('the reference fixture (agentenv-textcraft, files in sorted order)', () => {
  it('holds 544 goals of depth 1..4, in data_idx order (stable by depth)', () => {
    const depths = reference.goals.map(([, d]) => d);
    expect(reference.goals).toHaveLength(544);
    expect(depths).toEqual([...depths].sort((a, b) => a - b));
    expect([1, 2, 3, 4].map((d) => depths.filter((x) => x === d).length)).toEqual([125, 291, 117, 11]);
  });
});

describe('textcraft has agentenv-textcraft\'s goals and recipes (crafting_tree.py)', () => {
  it('lists the same 544 goals with the same depths in the same order (item_recipes_min_depth, sorted by depth)', () => {
    expect(tree.goals()).toEqual(reference.goals);
  });

  it('writes every recipe of every goal as the original does, ingredients in its order', () => {
    const ours = Object.fromEntries(reference.goals.map(([g]) => [g, tree.recipesOf(g).map((r) => r.text)]));
    expect(ours).toEqual(reference.recipes);
    expect(tree.recipesOf('oak_planks').map((r) => r.text)).toEqual(['craft 4 oak planks using 1 oak logs']);
  });

  it('keeps the original\'s tags: groups with a craftable member stay tags, the rest became items', () => {
    for (const tag of reference.tags) expect(tree.isTag(tag)).toBe(true);
    for (const pseudo of ['oak_logs', 'logs', 'coals', 'wooden_slabs']) {
      expect(tree.isTag(pseudo)).toBe(false);
      expect(tree.isGettable(pseudo)).toBe(true);
    }
  });
});

describe('textcraft answers as agentenv-textcraft does (environment.py TextCraftEnv.step)', () => {
  it.each(['get 4 planks', 'get 1 oak log', 'get 1 oak logs', 'get 2 wooden slabs'])('%s', (action) => {
    expect(answer(action)).toBe(reference.messages[action]);
  });

  it('refuses iron ingots (crafted from nuggets) and fetches iron nuggets', () => {
    expect(answer('get 3 iron ingot')).toBe(reference.messages['get 3 iron ingot']);
    expect(answer('get 3 iron ingot')).toBe('Could not find iron ingot');
    expect(answer('get 9 iron nugget')).toBe(reference.messages['get 9 iron nugget']);
    expect(answer('get 9 iron nugget')).toBe('Got 9 iron nugget');
    expect(answer('get 9 iron nugget', 'craft 1 iron ingot using 9 iron nugget')).toBe('Crafted 1 minecraft:iron_ingot');
  });

  it('crafts from a tag pseudo-item: get 1 oak logs, craft 4 oak planks using 1 oak logs', () => {
    const key = 'get 1 oak logs; craft 4 oak planks using 1 oak logs';
    expect(answer('get 1 oak logs', 'craft 4 oak planks using 1 oak logs')).toBe(reference.messages[key]);
    expect(reference.messages[key]).toBe('Crafted 4 minecraft:oak_planks');
  });
});

describe('textcraft data_idx (environment.py TextCraftEnv.reset)', () => {
  it('selects goals as the original: 0 → acacia planks, 100 → snow block, 543 → purple banner, modulo 544', () => {
    expect(textcraftAgentGymIndex.size).toBe(544);
    expect([0, 100, 543, 544].map((i) => textcraftAgentGymIndex.taskIdAt(i))).toEqual(['acacia_planks', 'snow_block', 'purple_banner', 'acacia_planks']);
    expect(reference.goals.map(([g]) => g).filter((_, i) => [0, 100, 543].includes(i))).toEqual(['acacia_planks', 'snow_block', 'purple_banner']);
    expect(reference.goals.every(([g], i) => textcraftAgentGymIndex.taskIdAt(i) === g && textcraftAgentGymIndex.dataIdxOf(g) === i)).toBe(true);
    expect(textcraftAgentGymIndex.taskIdAt(-1)).toBeUndefined();
  });
});
