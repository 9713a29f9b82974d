/**
 * The world: rooms joined by doors, a containment tree of things under each room, the agent and
 * its inventory, and the clock. Actions change the tree; `tick` runs the processes (heat,
 * circuits, life) once per simulated step, as ScienceWorld advances one iteration per action.
 */
import { updateCircuits } from './circuits.ts';
import { tickLife } from './life.ts';
import { tickDevices, tickThermal } from './physics.ts';
import { Thing, type ContainerProp, type Kind } from './thing.ts';

export class World {
  readonly things: Thing[] = [];
  readonly rooms: Thing[] = [];
  readonly doors: Thing[] = [];
  readonly agent: Thing;
  readonly inventory: Thing;
  /** Simulated iterations so far. */
  time = 0;

  constructor(startRoom: Thing | null = null) {
    this.agent = new Thing(this.things.length, 'agent', 'agent');
    this.things.push(this.agent);
    this.agent.movable = false;
    this.inventory = this.add('inventory', 'inventory', this.agent, { container: { prep: 'in', open: true, closable: false, hasDoor: false } });
    this.inventory.movable = false;
    if (startRoom) this.place(this.agent, startRoom);
  }

  /** Creates a thing inside `parent` (null for rooms). */
  add(name: string, kind: Kind, parent: Thing | null, init: Partial<Pick<Thing, 'container' | 'movable' | 'temperature' | 'edible' | 'usable'>> & { container?: ContainerProp } = {}): Thing {
    const thing = new Thing(this.things.length, name, kind);
    Object.assign(thing, init);
    this.things.push(thing);
    if (kind === 'room') {
      thing.movable = false;
      // The floor holds what is put down.
      thing.container = { prep: 'in', open: true, closable: false, hasDoor: false };
      this.rooms.push(thing);
    }
    if (parent) this.place(thing, parent);
    return thing;
  }

  room(name: string): Thing {
    const room = this.rooms.find((r) => r.name === name);
    if (!room) throw new Error(`no room "${name}"`);
    return room;
  }

  /** Joins two rooms with a door; ScienceWorld lists it under "You also see:" in both. */
  connect(a: Thing, b: Thing, open: boolean): Thing {
    const door = new Thing(this.things.length, 'door', 'door');
    door.movable = false;
    door.door = { rooms: [a, b], open };
    this.things.push(door);
    this.doors.push(door);
    return door;
  }

  doorsOf(room: Thing): Thing[] {
    return this.doors.filter((d) => d.door!.rooms[0] === room || d.door!.rooms[1] === room);
  }

  otherSide(door: Thing, room: Thing): Thing {
    const [a, b] = door.door!.rooms;
    return a === room ? b : a;
  }

  doorBetween(a: Thing, b: Thing): Thing | undefined {
    return this.doorsOf(a).find((d) => this.otherSide(d, a) === b);
  }

  agentRoom(): Thing {
    return this.agent.parent as Thing;
  }

  /** Moves `thing` under `parent`; returns true when it had to be disconnected electrically. */
  place(thing: Thing, parent: Thing): boolean {
    this.detach(thing);
    thing.parent = parent;
    parent.children.push(thing);
    return disconnectAll(thing);
  }

  /** Takes a thing out of the world (eaten, used up by a reaction). */
  remove(thing: Thing): void {
    this.detach(thing);
    disconnectAll(thing);
  }

  private detach(thing: Thing): void {
    const p = thing.parent;
    if (!p) return;
    const i = p.children.indexOf(thing);
    if (i >= 0) p.children.splice(i, 1);
    thing.parent = null;
  }

  /**
   * What the agent can refer to: its room, the things in it down through open containers,
   * its inventory (and the agent itself, hidden from lists), and the room's doors.
   */
  accessible(): Thing[] {
    const room = this.agentRoom();
    const out: Thing[] = [room];
    const walk = (t: Thing): void => {
      for (const c of t.children) {
        if (c !== this.agent) out.push(c);
        if (c === this.agent) {
          out.push(this.inventory);
          walk(this.inventory);
        } else if (c.kind !== 'inventory' && (!c.container || c.container.open)) walk(c);
      }
    };
    walk(room);
    out.push(...this.doorsOf(room));
    return out;
  }

  /** Every thing still in the world (under some room). */
  live(): Thing[] {
    return this.things.filter((t) => t.kind !== 'door' && t.kind !== 'room' && t.room() !== null);
  }

  /** One simulated iteration: devices, heat and phase changes, circuits, living things. */
  tick(iterations = 1): void {
    for (let i = 0; i < iterations; i++) {
      this.time += 1;
      tickDevices(this);
      tickThermal(this);
      updateCircuits(this);
      tickLife(this);
    }
  }
}

function disconnectAll(thing: Thing): boolean {
  let any = false;
  for (const t of thing.terminals ?? []) {
    if (t.connectedTo) {
      t.connectedTo.connectedTo = null;
      t.connectedTo = null;
      any = true;
    }
  }
  return any;
}
