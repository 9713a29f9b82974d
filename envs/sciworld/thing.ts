/**
 * Objects of the simulated world. One class with optional property bags (container, device,
 * electrical terminals, life) rather than a class hierarchy: ScienceWorld's objects combine
 * properties freely (a stove is a device and a surface; a fork is a test object with terminals),
 * and a flat bag keeps cloning and checks simple.
 */
import type { Material } from './substances.ts';

export type Kind = 'room' | 'agent' | 'inventory' | 'door' | 'object' | 'substance' | 'plant' | 'animal';

export interface ContainerProp {
  /** `in` lists as "In the X is:", `on` as "On the X is:" (tables, stoves). */
  readonly prep: 'in' | 'on';
  open: boolean;
  readonly closable: boolean;
  /** Closable appliances (fridge, oven) say "The fridge door is closed." */
  readonly hasDoor: boolean;
}

export type DeviceKind = 'stove' | 'oven' | 'furnace' | 'fridge' | 'freezer' | 'sink' | 'bulb' | 'switch' | 'plain';

export interface DeviceProp {
  readonly kind: DeviceKind;
  on: boolean;
  readonly activable: boolean;
}

/** A point of electrical contact: `terminal 1`/`terminal 2` (unpolarized) or `anode`/`cathode`. */
export class Terminal {
  connectedTo: Terminal | null = null;
  constructor(
    readonly owner: Thing,
    readonly name: string,
  ) {}
  get label(): string {
    return `${this.name} on ${this.owner.name}`;
  }
}

export type LifeStage = 'seed' | 'seedling' | 'adult' | 'reproducing' | 'dead' | 'egg' | 'baby' | 'juvenile';

export interface LifeProp {
  /** Species name as written: `apple tree`, `elephant`. */
  readonly species: string;
  stage: LifeStage;
  /** Ticks lived so far. */
  age: number;
  /** Lifespan in years (animals: the Lifespan family's key fact; plants: unused). */
  readonly lifespanYears: number;
  /** Ticks without water (plants). */
  thirst: number;
}

export class Thing {
  parent: Thing | null = null;
  readonly children: Thing[] = [];
  /** Extra names the parser accepts ("cup" for "glass cup"). */
  aliases: string[] = [];
  movable = true;
  temperature = 20;
  container?: ContainerProp;
  device?: DeviceProp;
  /** What the object is made of (objects) or is (substances); decides conductivity and phase. */
  material?: Material;
  terminals?: Terminal[];
  life?: LifeProp;
  /** Text shown by `read`. */
  text?: string;
  edible = false;
  /** Doors: the two rooms they join; `open` is their state. */
  door?: { readonly rooms: readonly [Thing, Thing]; open: boolean };
  /** Thermometers measure; `use X on Y` needs a usable device. */
  usable = false;
  /** Role in a circuit: a source, a load (bulb), or a part that conducts when its material does. */
  electrical?: 'battery' | 'load' | 'part';

  constructor(
    readonly id: number,
    public name: string,
    readonly kind: Kind,
  ) {}

  isLiving(): boolean {
    return this.life !== undefined && this.life.stage !== 'dead';
  }

  /** The chain of containers up to (and including) the room; empty for rooms. */
  ancestors(): Thing[] {
    const out: Thing[] = [];
    for (let p = this.parent; p; p = p.parent) out.push(p);
    return out;
  }

  /** The room this thing is in (the agent's room for carried things). */
  room(): Thing | null {
    let t: Thing | null = this;
    while (t && t.kind !== 'room') t = t.parent;
    return t;
  }

  isInside(other: Thing): boolean {
    for (let p = this.parent; p; p = p.parent) if (p === other) return true;
    return false;
  }

  /** The names the parser matches: the name first (it is what the oracle and action lists write), then aliases. */
  baseReferents(): string[] {
    const aliases = this.aliases.filter((a) => a !== this.name).sort((a, b) => b.length - a.length);
    return [this.name, ...aliases];
  }
}

export function article(name: string): string {
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}
