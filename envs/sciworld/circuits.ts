/**
 * Electrical circuits. Terminals join in pairs (`connect A to B`); a part (wire, fork, switch)
 * joins its own two terminals when it conducts (its material is conductive; a switch only when on).
 * A bulb lights when one battery's anode reaches one bulb terminal and its cathode the other,
 * through connections and conducting parts only — a closed loop through conductors. Other bulbs
 * on the path count as conductors, so bulbs in series all light.
 */
import { Terminal, type Thing } from './thing.ts';
import type { World } from './world.ts';

/** Gives `thing` two terminals: `anode`/`cathode` when polarized, else `terminal 1`/`terminal 2`. */
export function addTerminals(thing: Thing, role: 'battery' | 'load' | 'part', polarized = role !== 'part'): Thing {
  thing.electrical = role;
  thing.terminals = polarized ? [new Terminal(thing, 'anode'), new Terminal(thing, 'cathode')] : [new Terminal(thing, 'terminal 1'), new Terminal(thing, 'terminal 2')];
  return thing;
}

export function conducts(thing: Thing): boolean {
  if (thing.electrical !== 'part') return false;
  if (thing.device?.kind === 'switch') return thing.device.on;
  return thing.material?.conductive === true;
}

class UnionFind {
  private readonly parent = new Map<Terminal, Terminal>();
  find(t: Terminal): Terminal {
    let root = t;
    for (let p = this.parent.get(root); p && p !== root; p = this.parent.get(root)) root = p;
    this.parent.set(t, root);
    return root;
  }
  union(a: Terminal, b: Terminal): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra !== rb) this.parent.set(ra, rb);
  }
}

/** Sets every bulb on or off from the present connections. */
export function updateCircuits(world: World): void {
  const parts = world.live().filter((t) => t.terminals);
  const bulbs = parts.filter((t) => t.electrical === 'load');
  const batteries = parts.filter((t) => t.electrical === 'battery');
  for (const bulb of bulbs) {
    const uf = new UnionFind();
    for (const p of parts) {
      for (const t of p.terminals!) if (t.connectedTo) uf.union(t, t.connectedTo);
      if (conducts(p) || (p.electrical === 'load' && p !== bulb)) uf.union(p.terminals![0]!, p.terminals![1]!);
    }
    const [x, y] = bulb.terminals as [Terminal, Terminal];
    const lit = batteries.some((b) => {
      const [plus, minus] = b.terminals as [Terminal, Terminal];
      const [p, m, fx, fy] = [uf.find(plus), uf.find(minus), uf.find(x), uf.find(y)];
      return p !== m && ((p === fx && m === fy) || (p === fy && m === fx));
    });
    if (bulb.device) bulb.device.on = lit;
  }
}

/** "its anode is connected to: nothing. its cathode is connected to: cathode on battery." */
export function describeTerminals(thing: Thing): string {
  return (thing.terminals ?? []).map((t) => `its ${t.name} is connected to: ${t.connectedTo ? t.connectedTo.label : 'nothing'}.`).join(' ');
}

export function isConnected(thing: Thing): boolean {
  return (thing.terminals ?? []).some((t) => t.connectedTo !== null);
}
