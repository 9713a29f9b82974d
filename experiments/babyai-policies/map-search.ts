/**
 * The moves of experiments/babyai-policies/map-policy.ts, each chosen by simulating the candidate actions on a copy of
 * the game: to learn where the agent ends and which cells come into view, never what unseen
 * cells hold.
 */
import type { Game } from '../../envs/babyai/game.ts';
import type { World } from '../../envs/babyai/world.ts';
import type { MapMemory } from './babyai-map.ts';
import { actionsNaming as named } from './babyai-heuristic.ts';

/** Where each candidate action ends and what it reveals, on a copy of the game. */
export function simulate(game: Game, action: string): World | null {
  const copy = game.clone();
  return copy.act(action).kind === 'moved' ? copy.world : null;
}

/** The top-scoring item; ties are broken at random. */
function best<T>(items: readonly T[], score: (t: T) => number, rand: () => number): T | undefined {
  let top: T[] = [];
  let topScore = -Infinity;
  for (const t of items) {
    const s = score(t);
    if (s > topScore) [top, topScore] = [[t], s];
    else if (s === topScore) top.push(t);
  }
  return top.length > 0 ? top[Math.floor(rand() * top.length)] : undefined;
}

/** The move that ends nearest to one of `targets`, unseen cells revealed breaking ties. */
export function approach(game: Game, mem: MapMemory, moves: readonly string[], targets: readonly number[], rand: () => number): string | undefined {
  const goal = mem.nextTo(targets);
  const here = mem.distance(game.world.agentX, game.world.agentY, goal);
  const scored = moves.flatMap((a) => {
    const w = simulate(game, a);
    // Ending face to face with a target beats ending anywhere near it.
    const facing = targets.includes(w ? w.frontY * w.width + w.frontX : -1);
    return w ? [{ a, d: facing ? -1 : mem.distance(w.agentX, w.agentY, goal), n: mem.unseenIn(w) }] : [];
  });
  const pick = best(scored, (s) => -s.d * 100 + s.n, rand);
  return pick && pick.d < Infinity && (pick.d < here || pick.n > 0 || here === Infinity) ? pick.a : undefined;
}

/** Frontier exploration: reveal the most, else walk toward the nearest unseen edge. */
export function explore(game: Game, mem: MapMemory, moves: readonly string[], rand: () => number): string | undefined {
  const scored = moves.flatMap((a) => {
    const copy = game.clone();
    if (copy.act(a).kind !== 'moved') return [];
    const w = copy.world;
    const first = mem.visible(w).filter((idx) => mem.worth(idx) > 0);
    // Two turns ahead: what this move reveals plus the most the best next move adds to it.
    const known = new Set(first);
    const gain = first.reduce((sum, idx) => sum + mem.worth(idx), 0);
    let more = 0;
    for (const b of MOVES([...copy.macros().actions.keys()])) {
      const next = copy.clone();
      if (next.act(b).kind !== 'moved') continue;
      more = Math.max(more, mem.visible(next.world).reduce((sum, idx) => sum + (known.has(idx) ? 0 : mem.worth(idx)), 0));
    }
    return [{ a, w, n: gain + more }];
  });
  if (scored.some((s) => s.n > 0)) return best(scored, (s) => s.n, rand)?.a;
  const frontier = (idx: number) => mem.frontier(idx);
  const pick = best(scored, (s) => -mem.distance(s.w.agentX, s.w.agentY, frontier), rand);
  return pick && mem.distance(pick.w.agentX, pick.w.agentY, frontier) < Infinity ? pick.a : undefined;
}

/** The actions that move the agent or open its way; pickups and drops are the sub-goals' to take. */
export const MOVES = (actions: readonly string[]) =>
  actions.filter((a) => a !== 'check available actions' && a !== 'drop' && !a.startsWith('pickup') && a !== 'toggle');

/** The cell an action works on: the object it picks up, the door it opens, else the one it ends facing. */
export function touched(before: World, after: World): number {
  if (after.carrying >= 0 && before.carrying < 0) {
    const o = before.obj(after.carrying);
    return o.y * before.width + o.x;
  }
  const door = before.objs.find((o, i) => o.type === 'door' && o.isOpen !== after.objs[i]!.isOpen);
  return door ? door.y * before.width + door.x : after.frontY * after.width + after.frontX;
}

/** Opens a locked door seen on the map: picks up a key of its colour, then goes to the door and toggles it. */
export function unlock(game: Game, mem: MapMemory, actions: readonly string[], moves: readonly string[], keyColor: string | undefined, rand: () => number): string | undefined {
  const locked = mem.find({ color: undefined, type: 'door' }, 'locked').map((idx) => ({ idx, color: mem.objs.get(idx)!.color }));
  if (keyColor !== undefined) {
    const door = locked.find((d) => d.color === keyColor);
    if (!door) return actions.includes('drop') ? 'drop' : undefined;
    return named(actions, 'toggle', { color: keyColor, type: 'door' })[0] ?? approach(game, mem, moves, [door.idx], rand);
  }
  for (const door of locked) {
    const pickup = named(actions, 'pickup', { color: door.color, type: 'key' })[0];
    if (pickup) return pickup;
    const keys = mem.find({ color: door.color, type: 'key' });
    if (keys.length > 0) return approach(game, mem, moves, keys, rand);
  }
  return undefined;
}
