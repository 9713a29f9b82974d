/**
 * `info.availableActions` for TextCraft. AgentGym lists none (the grammar is open), but a
 * random baseline and constrained decoding need a finite set, so we list the executable
 * form of what the observation shows: every crafting command with each generic tag filled
 * by the members the list can make (`4 planks` → `4 oak planks`, `4 birch planks`, …), a
 * `get` for every base ingredient in the counts the commands use and in the total a plan from
 * an empty inventory fetches (`plannedGets`; without it an item that must be crafted many
 * times, such as 279 iron nuggets for an anvil, takes one `get` per batch), and `inventory`.
 * The env still accepts any action in the grammar.
 */
import { itemText } from './names.ts';
import type { CraftingTree, Ingredient, Recipe } from './tree.ts';

export function availableActions(tree: CraftingTree, commands: readonly Recipe[], plannedGets: readonly string[] = []): string[] {
  const outputs = new Set(commands.map((r) => r.output));
  const actions = new Set<string>();
  for (const recipe of commands) {
    for (const inputs of fillTags(tree, recipe.inputs, outputs)) {
      actions.add(`craft ${recipe.count} ${itemText(recipe.output)} using ${inputs.map((i) => `${i.count} ${itemText(i.name)}`).join(', ')}`);
    }
  }
  for (const recipe of commands) {
    for (const input of recipe.inputs) if (!input.tag && tree.isGettable(input.name)) actions.add(`get ${input.count} ${itemText(input.name)}`);
  }
  for (const get of plannedGets) actions.add(get);
  actions.add('inventory');
  return [...actions];
}

/** The ingredient lists with each tag replaced by one member, over all combinations. */
function fillTags(tree: CraftingTree, inputs: readonly Ingredient[], makeable: ReadonlySet<string>): Ingredient[][] {
  let lists: Ingredient[][] = [[]];
  for (const input of inputs) {
    if (!input.tag) {
      lists = lists.map((l) => [...l, input]);
      continue;
    }
    const members = tree.tagMembers(input.name);
    const listed = members.filter((m) => makeable.has(m));
    const choices = (listed.length > 0 ? listed : members).map((name): Ingredient => ({ name, count: input.count, tag: false }));
    lists = lists.flatMap((l) => choices.map((c) => [...l, c]));
  }
  return lists;
}
