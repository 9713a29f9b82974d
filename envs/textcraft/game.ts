/**
 * One TextCraft episode's rules, after AgentGym's `TextCraftEnv.step`: the action grammar
 * (`craft <N> <target> using <N> <ingredient>[, ...]`, `get <N> <item>`, `inventory`, each
 * matched at the start of the action as Python's `re.match` does) and the exact response
 * strings, including the error messages that print Python reprs.
 */
import { fullId, itemId, itemText, pyRepr } from './names.ts';
import type { CraftingTree, TypedCount, TypedName } from './tree.ts';

export interface Outcome {
  readonly observation: string;
  readonly reward: number;
  readonly terminated: boolean;
  /** The action failed (AgentGym's `ActionFailed`); the observation is its message. */
  readonly invalid: boolean;
}

// Python's `.` stops at a newline only; JavaScript's also at \r, \u2028 and \u2029.
const CRAFT = /^craft ([^\n]*) using ([^\n]*)/;
const GET = /^get ([0-9]+) ([^\n]*)/;
const INVENTORY = /^inventory/;
const COUNT = /^([0-9]+) ([^\n]*)/;

class ActionFailed extends Error {}

interface TypedRecipe {
  readonly output: TypedName;
  readonly outputCount: string;
  readonly inputs: readonly TypedCount[];
}

export class TextCraftGame {
  /** Item id → count, in insertion order (AgentGym's dict; the inventory message follows it). */
  readonly inventory: Map<string, number>;

  constructor(
    readonly tree: CraftingTree,
    readonly goal: string,
    inventory?: ReadonlyMap<string, number>,
  ) {
    this.inventory = new Map(inventory);
  }

  clone(): TextCraftGame {
    return new TextCraftGame(this.tree, this.goal, this.inventory);
  }

  step(action: string): Outcome {
    try {
      const craft = CRAFT.exec(action);
      if (craft) return this.#craft(craft[1] as string, craft[2] as string);
      const get = GET.exec(action);
      if (get) return this.#get(get[1] as string, get[2] as string, action);
      if (INVENTORY.test(action)) return ok(this.inventoryText());
      throw new ActionFailed(`Could not execute ${action}`);
    } catch (error) {
      if (!(error instanceof ActionFailed)) throw error;
      return { observation: error.message, reward: 0, terminated: false, invalid: true };
    }
  }

  /** `Inventory: [oak planks] (4) [stick] (4) ` — with AgentGym's trailing space. */
  inventoryText(): string {
    if (this.inventory.size === 0) return 'Inventory: You are not carrying anything.';
    let text = 'Inventory: ';
    for (const [id, n] of this.inventory) text += `[${itemText(id)}] (${n}) `;
    return text;
  }

  #craft(outputText: string, inputsText: string): Outcome {
    const recipe = this.#parseRecipe(outputText, inputsText);
    if (!this.#hasItems(recipe.inputs)) {
      throw new ActionFailed(`Could not find enough items to craft ${recipe.output.item === null ? 'None' : fullId(recipe.output.item)}`);
    }
    const matched = this.tree.match(recipe.output, recipe.inputs);
    if (!matched) throw new ActionFailed(`Could not find a valid recipe for ${typedCountRepr(recipe.output, recipe.outputCount)}`);
    for (const input of recipe.inputs) {
      const id = input.name.item as string;
      const left = (this.inventory.get(id) as number) - input.count;
      if (left === 0) this.inventory.delete(id);
      else this.inventory.set(id, left);
    }
    this.#add(matched.output, matched.count);
    const observation = `Crafted ${matched.count} ${fullId(matched.output)}`;
    return matched.output === this.goal ? { observation, reward: 1, terminated: true, invalid: false } : ok(observation);
  }

  #get(amountText: string, text: string, action: string): Outcome {
    const amount = Number(amountText);
    // Python's ints are unbounded; ours stop where counting stays exact.
    if (!Number.isSafeInteger(amount + (this.inventory.get(itemId(text)) ?? 0))) throw new ActionFailed(`Could not execute ${action}`);
    const typed = this.tree.typed(itemId(text));
    const name = typed.item ?? (typed.tag as string);
    if (this.tree.isCraftable(name) || typed.item === null || !this.tree.isValidItem(typed.item)) {
      throw new ActionFailed(`Could not find ${text}`);
    }
    this.#add(typed.item, amount);
    const observation = `Got ${amount} ${text}`;
    return typed.item === this.goal ? { observation, reward: 1, terminated: true, invalid: false } : ok(observation);
  }

  /** AgentGym's `extract_recipe`: `4 oak planks` (count optional) and `1 oak log, 2 stick`. */
  #parseRecipe(outputText: string, inputsText: string): TypedRecipe {
    const counted = COUNT.exec(outputText);
    const output = this.tree.typed(itemId(counted ? (counted[2] as string) : outputText));
    const inputs = inputsText.split(',').map((part): TypedCount => {
      const m = COUNT.exec(part.trim());
      if (!m) throw new ActionFailed(`Wrong item format: ${part.trim()}`);
      return { name: this.tree.typed(itemId(m[2] as string)), count: Number(m[1]) };
    });
    return { output, outputCount: counted ? BigInt(counted[1] as string).toString() : '1', inputs };
  }

  #hasItems(inputs: readonly TypedCount[]): boolean {
    return inputs.every((i) => i.name.item !== null && (this.inventory.get(i.name.item) ?? -1) >= i.count);
  }

  #add(id: string, amount: number): void {
    this.inventory.set(id, (this.inventory.get(id) ?? 0) + amount);
  }
}

const ok = (observation: string): Outcome => ({ observation, reward: 0, terminated: false, invalid: false });

/** Python's repr of AgentGym's `ItemTagWithCount`, which its "valid recipe" message prints. */
function typedCountRepr(name: TypedName, count: string): string {
  const tag = name.tag === null ? null : fullId(name.tag);
  const item = name.item === null ? null : fullId(name.item);
  return `ItemTagWithCount(item_tag=ItemTag(tag=${pyRepr(tag)}, item_id=${pyRepr(item)}), count=${count})`;
}
