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

  async next(): Promise<string> {
    const game = this.env.internalGame();
    if (this.plan.length === 0 || inventoryKey(game) !== this.expected) {
      // Every goal has a recipe of gettable items, so a null plan means a broken recipe file;
      // `inventory` keeps the episode going harmlessly.
      this.plan = planCrafting(game.tree, game.inventory, game.goal) ?? ['inventory'];
    }
    const action = this.plan.shift() as string;
    const after = game.clone();
    after.step(action);
    this.expected = inventoryKey(after);
    return action;
  }
}

function inventoryKey(game: TextCraftGame): string {
  return JSON.stringify([game.goal, ...game.inventory]);
}
