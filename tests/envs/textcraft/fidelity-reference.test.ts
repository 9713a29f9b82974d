/**
 * Issue 28: TextCraft against AgentGym's own agentenv-textcraft. The expected values come from
 * fixtures/agentgym-reference.json, written by running the original's CraftingTree and
 * TextCraftEnv (environment.py `step`/`reset`, crafting_tree.py) with fixtures/agentgym-reference.py.
 * What already agrees is tested; what does not yet is listed as todo with the original's answer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { craftingTree } from '../../../envs/textcraft/tree.ts';
import { TextCraftGame } from '../../../envs/textcraft/game.ts';

interface Reference {
  readonly goals: readonly (readonly [string, number])[];
  readonly recipes: Readonly<Record<string, readonly string[]>>;
  readonly messages: Readonly<Record<string, string>>;
}

const reference = JSON.parse(readFileSync(new URL('./fixtures/agentgym-reference.json', import.meta.url), 'utf8')) as Reference;

function answer(...actions: string[]): string {
  const game = new TextCraftGame(craftingTree(), 'crafting_table');
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

describe('textcraft answers as agentenv-textcraft does (environment.py TextCraftEnv.step)', () => {
  it.each(['get 4 planks', 'get 1 oak log'])('%s', (action) => {
    // A tag is refused ("Could not find planks"); a base item that a recipe names is fetched.
    expect(answer(action)).toBe(reference.messages[action]);
  });

  it('shares 538 of the original\'s 544 goals (the gap issue 28 closes; raise this as it closes)', () => {
    const ours = new Set(craftingTree().craftableItems().filter((g) => craftingTree().minDepth(g) >= 1));
    expect(reference.goals.filter(([g]) => ours.has(g))).toHaveLength(538);
  });

  it('differs from it as measured for issue 28 (depths, recipe texts); update these as the gap closes', () => {
    const tree = craftingTree();
    const shared = reference.goals.filter(([g]) => tree.recipesOf(g).length > 0);
    expect(shared.filter(([g, d]) => tree.minDepth(g) !== d)).toHaveLength(41);
    const sameSet = (a: string, b: string): boolean => {
      const [outA, inA] = a.split(' using ') as [string, string];
      const [outB, inB] = b.split(' using ') as [string, string];
      return outA === outB && inA.split(', ').sort().join() === inB.split(', ').sort().join();
    };
    const theirs = shared.flatMap(([g]) => (reference.recipes[g] ?? []).map((text) => ({ text, ours: tree.recipesOf(g).map((r) => r.text) })));
    const identical = theirs.filter((r) => r.ours.includes(r.text));
    const reordered = theirs.filter((r) => !r.ours.includes(r.text) && r.ours.some((o) => sameSet(o, r.text)));
    expect([theirs.length, identical.length, reordered.length]).toEqual([607, 524, 64]);
  });

  // Not yet ours; the original's answers, from the fixture:
  it.todo(`get 3 iron ingot → ${JSON.stringify(reference.messages['get 3 iron ingot'])} (ingots are crafted from nuggets)`);
  it.todo(`get 9 iron nugget → ${JSON.stringify(reference.messages['get 9 iron nugget'])}`);
  it.todo(`tag pseudo-items: get 2 wooden slabs → ${JSON.stringify(reference.messages['get 2 wooden slabs'])}; get 1 oak logs, craft 4 oak planks using 1 oak logs → ${JSON.stringify(reference.messages['get 1 oak logs; craft 4 oak planks using 1 oak logs'])}`);
  it.todo('544 goals; data_idx 0 → acacia_planks, 100 → snow_block, 543 → purple_banner (files in sorted order)');
});
