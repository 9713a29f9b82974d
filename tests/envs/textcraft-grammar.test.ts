/**
 * TextCraft's action grammar and response strings against AgentGym's `TextCraftEnv.step`
 * (reference §3): `Got …`, `Crafted N minecraft:…`, `Inventory: [item] (n) `, and the error
 * messages, including the ones that print a Python repr.
 */
import { describe, expect, it } from 'vitest';
import type { StepResult } from '../../envs/contract.ts';
import { textcraftDefinition, TextCraftGame, craftingTree } from '../../envs/textcraft/index.ts';

const game = (goal = 'crafting_table') => new TextCraftGame(craftingTree(), goal);
const say = (g: TextCraftGame, action: string) => g.step(action).observation;

describe('textcraft responses, as AgentGym writes them', () => {
  it('gets base items and crafts with the full Minecraft id', () => {
    const g = game();
    expect(g.step('get 1 oak logs')).toEqual({ observation: 'Got 1 oak logs', reward: 0, terminated: false, invalid: false });
    expect(g.step('craft 4 oak planks using 1 oak logs')).toEqual({ observation: 'Crafted 4 minecraft:oak_planks', reward: 0, terminated: false, invalid: false });
    expect(say(g, 'inventory')).toBe('Inventory: [oak planks] (4) ');
    expect(g.step('craft 1 crafting table using 4 oak planks')).toEqual({ observation: 'Crafted 1 minecraft:crafting_table', reward: 1, terminated: true, invalid: false });
  });

  it('writes the inventory in insertion order with a trailing space, or says it is empty', () => {
    const g = game();
    expect(say(g, 'inventory')).toBe('Inventory: You are not carrying anything.');
    say(g, 'get 2 oak logs');
    say(g, 'get 3 cobblestone');
    say(g, 'craft 4 oak planks using 1 oak logs');
    expect(say(g, 'inventory')).toBe('Inventory: [oak logs] (1) [cobblestone] (3) [oak planks] (4) ');
    // A count that reaches 0 leaves the inventory; coming back puts it last, as a Python dict does.
    say(g, 'craft 4 oak planks using 1 oak logs');
    say(g, 'get 1 oak logs');
    expect(say(g, 'inventory')).toBe('Inventory: [cobblestone] (3) [oak planks] (8) [oak logs] (1) ');
    // AgentGym's parser only checks that the action starts with a command.
    expect(say(g, 'inventory please')).toMatch(/^Inventory: /);
  });

  it('refuses to get craftable items, tags and unknown items', () => {
    const g = game();
    for (const [action, message] of [
      ['get 1 crafting table', 'Could not find crafting table'],
      ['get 4 oak planks', 'Could not find oak planks'],
      ['get 1 planks', 'Could not find planks'],
      ['get 1 zombie head', 'Could not find zombie head'],
      ['get 1 Oak Log', 'Could not find Oak Log'],
      ['get 1 oak log ', 'Could not find oak log '],
    ]) {
      expect(g.step(action as string)).toEqual({ observation: message, reward: 0, terminated: false, invalid: true });
    }
    expect(say(g, 'inventory')).toBe('Inventory: You are not carrying anything.');
  });

  it('accepts what AgentGym accepts: ids with underscores, leading zeros, a zero count', () => {
    const g = game();
    expect(say(g, 'get 01 oak_log')).toBe('Got 1 oak_log');
    expect(say(g, 'get 0 stick')).toBe('Could not find stick');
    expect(say(g, 'get 0 cobblestone')).toBe('Got 0 cobblestone');
    expect(say(g, 'inventory')).toBe('Inventory: [oak log] (1) [cobblestone] (0) ');
  });

  it('answers malformed actions with AgentGym\'s messages', () => {
    const g = game();
    for (const [action, message] of [
      ['dance', 'Could not execute dance'],
      ['get oak log', 'Could not execute get oak log'],
      ['Get 1 oak log', 'Could not execute Get 1 oak log'],
      [' inventory', 'Could not execute  inventory'],
      ['craft 4 oak planks from 1 oak log', 'Could not execute craft 4 oak planks from 1 oak log'],
      ['', 'Could not execute '],
      ['craft 4 oak planks using oak log', 'Wrong item format: oak log'],
      ['craft 4 oak planks using 1 oak log,', 'Wrong item format: '],
      ['get 99999999999999999999 oak log', 'Could not execute get 99999999999999999999 oak log'],
    ]) {
      expect(g.step(action as string)).toEqual({ observation: message, reward: 0, terminated: false, invalid: true });
    }
  });

  it('needs every ingredient in the inventory before it looks for a recipe', () => {
    const g = game();
    expect(say(g, 'craft 1 crafting table using 4 oak planks')).toBe('Could not find enough items to craft minecraft:crafting_table');
    say(g, 'get 1 oak log');
    expect(say(g, 'craft 4 oak planks using 2 oak log')).toBe('Could not find enough items to craft minecraft:oak_planks');
    // A tag names no item, so nothing in the inventory can be "4 planks".
    expect(say(g, 'craft 1 crafting table using 4 planks')).toBe('Could not find enough items to craft minecraft:crafting_table');
  });

  it('prints the Python repr when no recipe matches', () => {
    const g = game();
    say(g, 'get 3 oak log');
    say(g, 'get 1 cobblestone');
    const repr = (tag: string, item: string, n: number) => `Could not find a valid recipe for ItemTagWithCount(item_tag=ItemTag(tag=${tag}, item_id=${item}), count=${n})`;
    expect(say(g, 'craft 8 oak planks using 2 oak log')).toBe(repr('None', "'minecraft:oak_planks'", 8));
    expect(say(g, 'craft oak planks using 1 oak log, 1 cobblestone')).toBe(repr('None', "'minecraft:oak_planks'", 1));
    expect(say(g, 'craft 4 planks using 1 oak log')).toBe(repr("'minecraft:planks'", 'None', 4));
    expect(say(g, "craft 1 jack's lantern using 1 cobblestone")).toBe(repr('None', '"minecraft:jack\'s_lantern"', 1));
    expect(say(g, 'inventory')).toBe('Inventory: [oak log] (3) [cobblestone] (1) ');
  });

  it('matches a generic tag with any member, but not a mix of members', () => {
    const g = game();
    say(g, 'get 1 birch logs');
    say(g, 'get 1 oak logs');
    say(g, 'craft 4 birch planks using 1 birch logs');
    say(g, 'craft 4 oak planks using 1 oak logs');
    expect(say(g, 'craft 1 crafting table using 2 oak planks, 2 birch planks')).toMatch(/^Could not find a valid recipe for /);
    // The output count is ignored: the recipe's own count is crafted.
    expect(g.step('craft 7 crafting table using 4 birch planks')).toEqual({ observation: 'Crafted 1 minecraft:crafting_table', reward: 1, terminated: true, invalid: false });
  });

  it('rewards only the goal', () => {
    const g = game('stick');
    say(g, 'get 2 bamboo');
    say(g, 'get 1 oak logs');
    expect(g.step('craft 4 oak planks using 1 oak logs').reward).toBe(0);
    expect(g.step('craft 4 stick using 2 oak planks')).toEqual({ observation: 'Crafted 4 minecraft:stick', reward: 1, terminated: true, invalid: false });
    const other = game('stick');
    say(other, 'get 2 bamboo');
    expect(other.step('craft 1 stick using 2 bamboo')).toMatchObject({ observation: 'Crafted 1 minecraft:stick', reward: 1 });
  });

  it('flags invalid actions in info and keeps the episode going', async () => {
    const env = textcraftDefinition.make();
    await env.reset({ taskId: 'torch' });
    const steps: StepResult[] = [];
    for (const action of ['get 1 torch', 'get 1 coal', 'inventory']) steps.push(await env.step(action));
    expect(steps.map((s) => [s.observation, s.info.invalidAction, s.terminated])).toEqual([
      ['Could not find torch', true, false],
      ['Got 1 coal', false, false],
      ['Inventory: [coal] (1) ', false, false],
    ]);
  });
});
