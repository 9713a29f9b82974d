/**
 * The macro actions AgentGym offers in a state, each with the primitive actions it runs,
 * and the messages for the ones it refuses (`postprocess_obs`, second half). Names and
 * numbering follow the original exactly, including its counting quirks: pickup and go-to
 * numbers count only reachable objects, and some messages print the door counter dict.
 */
import { blockedCells, findPaths, type PathGoal } from './planner.ts';
import type { SeenObj, View } from './view.ts';
import { DIR_TO_VEC, type World, type WorldObj } from './world.ts';

export interface MacroActions {
  /** Action text → primitive actions, in the original's (dict insertion) order. */
  readonly actions: Map<string, number[]>;
  readonly errors: Map<string, string>;
}

const NOT_PICKABLE = new Set(['wall', 'door']);

/** One number per (cell, arrive): cells are far below 2^20 in both coordinates. */
function pathKey(o: SeenObj, arrive: boolean): number {
  return ((o.x << 20) | o.y) * 2 + (arrive ? 1 : 0);
}

/** Python's `str(dict)` for `{'red closed door': 1}`, which one original message prints. */
function pyDict(counts: Map<string, number>): string {
  return `{${[...counts].map(([k, v]) => `'${k}': ${v}`).join(', ')}}`;
}

// Module-level helpers rather than closures in computeMacroActions: tsx (esbuild's keepNames)
// wraps every named closure in a `__name` call each time it is created.

/** Registers the path to `o` (ending on it or facing it) as a goal of the one search. */
function wantPath(keys: Map<number, number>, goals: PathGoal[], o: SeenObj, arrive: boolean): void {
  const key = pathKey(o, arrive);
  if (keys.has(key)) return;
  keys.set(key, goals.length);
  goals.push({ goalX: o.x, goalY: o.y, arrive });
}

/** A copy of the path the search found to `o`, or null. */
function foundPath(found: readonly (number[] | null)[], keys: ReadonlyMap<number, number>, o: SeenObj, arrive: boolean): number[] | null {
  const p = found[keys.get(pathKey(o, arrive)) as number];
  return p ? p.slice() : null;
}

/** What the sections below add to: the offers and refusals so far, and the paths of the one search. */
interface Building extends MacroActions {
  readonly actions: Map<string, number[]>;
  readonly errors: Map<string, string>;
  readonly found: readonly (number[] | null)[];
  readonly keys: ReadonlyMap<number, number>;
}

/**
 * Every path this state can ask for, found in one search (planner.ts): keyed by goal cell and
 * whether the agent ends on it (open doors) or facing it (everything else).
 */
function searchPaths(world: World, view: View): { found: (number[] | null)[]; keys: Map<number, number> } {
  const keys = new Map<number, number>();
  const goals: PathGoal[] = [];
  for (const o of view.objs) {
    if (o.type === 'wall') continue;
    wantPath(keys, goals, o, false);
    if (o.state === 'open') wantPath(keys, goals, o, true);
  }
  return { found: findPaths(view, blockedCells(view), world.agentX, world.agentY, world.agentDir, goals), keys };
}

function addPickups(b: Building, view: View): void {
  const counts = new Map<string, number>();
  for (const o of view.objs) {
    if (NOT_PICKABLE.has(o.type)) continue;
    const p = foundPath(b.found, b.keys, o, false);
    const first = `pickup ${o.name} 1`;
    if (p) {
      p.push(3);
      const k = b.actions.has(first) ? (counts.get(o.name) ?? 0) + 1 : 1;
      counts.set(o.name, k);
      b.actions.set(`pickup ${o.name} ${k}`, p);
    } else {
      const k = b.actions.has(first) ? (counts.get(o.name) ?? 0) + 1 : 1;
      b.errors.set(`pickup ${o.name} ${k}`, `You cannot pickup ${o.name} ${k}, as there is no path leading to it.`);
    }
  }
}

function addDrop(b: Building, world: World, view: View, carrying: WorldObj | null): void {
  if (!carrying) {
    b.errors.set('drop', 'You cannot drop the object, as you are not carrying anything.');
    return;
  }
  const [dx, dy] = DIR_TO_VEC[world.agentDir] as readonly [number, number];
  const [fx, fy] = [world.agentX + dx, world.agentY + dy];
  const occupied = view.objs.some((o) => o.x === fx && o.y === fy && o.type !== 'door');
  if (occupied) b.errors.set('drop', 'You cannot drop the object, as there is already an object in front of you.');
  else b.actions.set('drop', [4]);
}

function addDoors(b: Building, view: View, carrying: WorldObj | null): void {
  const doorCounts = new Map<string, number>();
  for (const o of view.objs) {
    if (o.type !== 'door') continue;
    const k = (doorCounts.get(o.name) ?? 0) + 1;
    doorCounts.set(o.name, k);
    const through = `toggle and go through ${o.name} ${k}`;
    const noPath = `You cannot toggle and go through ${o.name} ${pyDict(doorCounts)}, as there is no path leading to it.`;
    if (o.state === 'open') {
      const p = foundPath(b.found, b.keys, o, true);
      if (p) b.actions.set(`go through ${o.name} ${k}`, p);
      else b.errors.set(`go through ${o.name} ${k}`, `You cannot go through ${o.name} ${k}, as there is no path leading to it.`);
      continue;
    }
    if (o.state === 'locked') {
      if (!carrying || carrying.type !== 'key') {
        b.errors.set(through, `You cannot toggle and go through ${o.name} ${k}, as you are not carrying a key.`);
        continue;
      }
      if (carrying.color !== o.color) {
        b.errors.set(through, `You cannot toggle and go through ${o.name} ${k}, as the color of the key you are carrying does not match the color of door.`);
        continue;
      }
    }
    const p = foundPath(b.found, b.keys, o, false);
    if (p) b.actions.set(through, [...p, 5, 2]);
    else b.errors.set(through, noPath);
    if (p && p.length === 0) b.actions.set('toggle', [5]);
    if (o.state === 'closed') {
      b.errors.set(`go through ${o.name} ${k}`, `You cannot go through ${o.name} ${k}, as it is closed. You should toggle it first.`);
    }
  }
}

function addGoTos(b: Building, view: View): void {
  const gotoCounts = new Map<string, number>();
  for (const o of view.objs) {
    if (o.type === 'wall') continue;
    const p = foundPath(b.found, b.keys, o, false);
    const first = `go to ${o.name} 1`;
    const k = b.actions.has(first) ? (gotoCounts.get(o.name) ?? 0) + 1 : 1;
    if (p) {
      gotoCounts.set(o.name, k);
      b.actions.set(`go to ${o.name} ${k}`, p);
    } else {
      b.errors.set(`go to ${o.name} ${k}`, `You cannot go to ${o.name} ${k}, as there is no path leading to it.`);
    }
  }
}

/** The sections run in the original's order, which is the offers' (dict insertion) order. */
export function computeMacroActions(world: World, view: View): MacroActions {
  const b: Building = { actions: new Map([['turn left', [0]], ['turn right', [1]]]), errors: new Map(), ...searchPaths(world, view) };
  const nearest = view.barriers[0];
  if (!nearest || nearest.dis > 1) b.actions.set('move forward', [2]);
  else b.errors.set('move forward', "There is a barrier in front of you, you can't move forward.");
  const carrying = world.carrying >= 0 ? world.obj(world.carrying) : null;
  if (!carrying) addPickups(b, view);
  addDrop(b, world, view, carrying);
  addDoors(b, view, carrying);
  // No BabyAI level of the test mix has a goal square, so "go to goal" never appears.
  addGoTos(b, view);
  b.actions.set('check available actions', []);
  return { actions: b.actions, errors: b.errors };
}
