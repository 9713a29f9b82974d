/**
 * The actions that make sense now, written with names the parser resolves uniquely — like
 * ScienceWorld's `get_valid_action_object_combinations`, but pruned to combinations whose checks
 * pass (ScienceWorld lists every pair of visible objects for two-object actions). AgentGym never
 * shows this list to the agent; actorgym keeps it in `info.availableActions` (for constrained
 * decoding and the random baseline), never in the observation text.
 */
import { referents, type Entity } from './parser.ts';
import { phaseOf } from './physics.ts';
import { Terminal, type Thing } from './thing.ts';
import type { World } from './world.ts';

/** For each entity, the first of its referents that no other accessible entity shares. */
export function uniqueNames(world: World, entities: readonly Entity[]): Map<Entity, string> {
  const all = entities.map((e) => [e, referents(world, e)] as const);
  const count = new Map<string, number>();
  for (const [, names] of all) for (const n of new Set(names)) count.set(n, (count.get(n) ?? 0) + 1);
  const out = new Map<Entity, string>();
  for (const [e, names] of all) out.set(e, names.find((n) => count.get(n) === 1) ?? (names[0] as string));
  return out;
}

/** How to write `e` so the parser resolves it uniquely among what the agent can refer to now. */
export function writeName(world: World, e: Entity): string {
  return uniqueNames(world, referable(world)).get(e) ?? (referents(world, e)[0] as string);
}

export function referable(world: World): Entity[] {
  const things = world.accessible().filter((t) => t.kind !== 'inventory' && t.kind !== 'room');
  const out: Entity[] = [...things];
  for (const t of things) for (const term of t.terminals ?? []) out.push(term);
  return out;
}

export function validActions(world: World): string[] {
  const entities = referable(world);
  const name = uniqueNames(world, entities);
  const n = (e: Entity): string => name.get(e) as string;
  const things = entities.filter((e): e is Thing => !(e instanceof Terminal));
  const out = ['look around', 'inventory', 'task', 'wait', 'wait1'];
  const containers = things.filter((t) => t.container?.open);
  for (const x of things) {
    out.push(`look at ${n(x)}`);
    if (x.kind === 'door') {
      if (!x.door!.open) out.push(`open ${n(x)}`);
      else out.push(`close ${n(x)}`, `go to ${world.otherSide(x, world.agentRoom()).name}`);
      continue;
    }
    out.push(`focus on ${n(x)}`);
    const c = x.container;
    if (c?.open) out.push(`look in ${n(x)}`);
    if (c?.closable) out.push(`${c.open ? 'close' : 'open'} ${n(x)}`);
    if (x.text) out.push(`read ${n(x)}`);
    if (x.edible) out.push(`eat ${n(x)}`);
    if (x.device?.activable) out.push(`${x.device.on ? 'deactivate' : 'activate'} ${n(x)}`);
    if ((x.terminals ?? []).some((t) => t.connectedTo)) out.push(`disconnect ${n(x)}`);
    if (x.usable) for (const y of things) if (y !== x && y.kind !== 'door') out.push(`use ${n(x)} on ${n(y)}`);
    const solid = x.movable && phaseOf(x) === 'solid';
    if (solid) out.push(x.parent === world.inventory ? `put down ${n(x)}` : `pick up ${n(x)}`);
    if (c?.open && x.children.length > 0) {
      out.push(`mix ${n(x)}`);
      if (x.movable) for (const y of containers) if (y !== x && !y.isInside(x)) out.push(`pour ${n(x)} into ${n(y)}`);
    }
    if (solid) for (const y of containers) if (y !== x && y !== x.parent && !y.isInside(x)) out.push(`move ${n(x)} to ${n(y)}`);
  }
  // Connections: free terminals of circuit parts and of whatever the agent carries.
  const free = entities.filter(
    (e): e is Terminal => e instanceof Terminal && !e.connectedTo && (e.owner.electrical !== 'part' || e.owner.name.endsWith('wire') || e.owner.isInside(world.inventory)),
  );
  for (let i = 0; i < free.length; i++) {
    for (let j = i + 1; j < free.length; j++) {
      const [a, b] = [free[i] as Terminal, free[j] as Terminal];
      if (a.owner !== b.owner) out.push(`connect ${n(a)} to ${n(b)}`);
    }
  }
  return out;
}
