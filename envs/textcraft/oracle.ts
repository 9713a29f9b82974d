/**
 * The TextCraft oracle: it reads the env's goal and inventory, plans the whole crafting tree
 * (planner.ts) and replays the plan while the inventory stays on it; when it does not (an
 * agent acted in between), it plans again from what the inventory now holds.
 */
import type { Oracle } from '../contract.ts';
import type { TextCraftEnv } from './env.ts';
import type { TextCraftGame } from './game.ts';
import { planCrafting } from './planner.ts';

export class TextCraftOracle implements Oracle {
  private plan: string[] = [];
  private expected = '';

  constructor(private readonly env: TextCraftEnv) {}

  /**
   * The plan's exact `get N item` through the env's action list, where the list has a `get` of
   * that item: the smallest listed count ≥ N (a surplus is harmless), else the largest listed
   * count with the rest fetched next turn. So the oracle acts in the grammar a policy with
   * constrained decoding has (its demos can be cloned: actors/sft); any other action is as planned.
   */
  private listed(action: string): string {
    const wanted = parseGet(action);
    if (wanted === undefined) return action;
    const counts = this.env.listedActions().map(parseGet).filter((g) => g !== undefined && g.item === wanted.item).map((g) => g!.count).sort((a, b) => a - b);
    if (counts.length === 0 || counts.includes(wanted.count)) return action;
    const enough = counts.find((c) => c >= wanted.count);
    if (enough !== undefined) return `get ${enough} ${wanted.item}`;
    const most = counts[counts.length - 1]!;
    this.plan.unshift(`get ${wanted.count - most} ${wanted.item}`);
    return `get ${most} ${wanted.item}`;
  }

  async next(): Promise<string> {
    const game = this.env.internalGame();
    if (this.plan.length === 0 || inventoryKey(game) !== this.expected) {
      // Every goal has a recipe of gettable items, so a null plan means a broken recipe file;
      // `inventory` keeps the episode going harmlessly.
      this.plan = planCrafting(game.tree, game.inventory, game.goal) ?? ['inventory'];
    }
    const action = this.listed(this.plan.shift() as string);
    const after = game.clone();
    after.step(action);
    this.expected = inventoryKey(after);
    return action;
  }
}

/** `get N item` → count and item, or undefined for any other action. */
function parseGet(action: string): { count: number; item: string } | undefined {
  const m = /^get (\d+) (.+)$/.exec(action);
  return m ? { count: Number(m[1]), item: m[2]! } : undefined;
}

function inventoryKey(game: TextCraftGame): string {
  return JSON.stringify([game.goal, ...game.inventory]);
}
