/**
 * ScienceWorld's input parser, rebuilt: an action is a template of verb aliases and object slots
 * ("move OBJ to|in|into|on OBJ"); an object slot matches any referent of a thing the agent can
 * access ("glass cup", "cup", "water in glass cup", "thermometer in inventory", "battery
 * anode"). Every way the input can be read is collected; one reading runs, none is "No known
 * action matches that input.", several are listed for the agent to pick by number.
 */
import { clarify } from './describe.ts';
import { Terminal, type Thing } from './thing.ts';
import type { World } from './world.ts';

export type ActionId =
  | 'look around' | 'look at' | 'look in' | 'read' | 'go' | 'open' | 'close' | 'pick up' | 'put down'
  | 'move' | 'pour' | 'dunk' | 'activate' | 'deactivate' | 'use' | 'connect' | 'disconnect'
  | 'mix' | 'eat' | 'flush' | 'focus' | 'wait' | 'wait1' | 'inventory' | 'task';

export type Entity = Thing | Terminal;

interface Template {
  readonly id: ActionId;
  readonly verbs: readonly string[];
  /** Words between the two objects of a two-object action. */
  readonly joins?: readonly string[];
  readonly arity: 0 | 1 | 2;
  /** How the action is written back (ambiguity list, valid actions). */
  readonly verb: string;
  readonly join?: string;
}

const t = (id: ActionId, verbs: string[], arity: 0 | 1 | 2, joins?: string[]): Template =>
  joins ? { id, verbs, arity, joins, verb: verbs[0] as string, join: joins[0] as string } : { id, verbs, arity, verb: verbs[0] as string };

export const TEMPLATES: readonly Template[] = [
  t('look around', ['look around', 'look'], 0),
  t('look at', ['look at', 'look on', 'examine'], 1),
  t('look in', ['look in'], 1),
  t('read', ['read'], 1),
  t('go', ['go to', 'go through', 'walk through', 'move through', 'walk to', 'move to', 'go into', 'move into', 'go'], 1),
  t('open', ['open'], 1),
  t('close', ['close'], 1),
  t('pick up', ['pick up', 'get', 'take'], 1),
  t('put down', ['put down', 'drop'], 1),
  t('move', ['move', 'put'], 2, ['to', 'in', 'into', 'on']),
  t('pour', ['pour'], 2, ['into', 'in', 'on', 'to']),
  t('dunk', ['dunk'], 2, ['into', 'in']),
  t('activate', ['activate', 'turn on'], 1),
  t('deactivate', ['deactivate', 'turn off'], 1),
  t('use', ['use'], 2, ['on', 'with']),
  t('use', ['use'], 1),
  t('connect', ['connect'], 2, ['to', 'in', 'into']),
  t('disconnect', ['disconnect'], 1),
  t('mix', ['mix'], 1),
  t('eat', ['eat'], 1),
  t('flush', ['flush'], 1),
  t('focus', ['focus on', 'focus'], 1),
  t('wait', ['wait'], 0),
  t('wait1', ['wait1'], 0),
  t('inventory', ['inventory'], 0),
  t('task', ['task'], 0),
];

export interface Resolved {
  readonly id: ActionId;
  readonly args: readonly Entity[];
}

export type ParseResult = { readonly kind: 'none' } | { readonly kind: 'one'; readonly action: Resolved } | { readonly kind: 'many'; readonly actions: readonly Resolved[] };

/** Lower case, single spaces, no trailing period or quotes, no "the"/"a" articles. */
export function normalize(input: string): string {
  return input
    .toLowerCase()
    .replace(/["'`]/g, '')
    .replace(/[.!?]+\s*$/, '')
    .split(/\s+/)
    .filter((w) => w !== '' && w !== 'the')
    .join(' ');
}

/** The names an entity answers to, seen from the agent's room. */
export function referents(world: World, e: Entity): string[] {
  return rawReferents(world, e).map((r) => r.toLowerCase());
}

function rawReferents(world: World, e: Entity): string[] {
  if (e instanceof Terminal) {
    const out: string[] = [];
    for (const o of rawReferents(world, e.owner)) out.push(`${o} ${e.name}`, `${e.name} in ${o}`, `${e.name} on ${o}`);
    return out;
  }
  if (e.kind === 'door') {
    const other = world.otherSide(e, world.agentRoom()).name;
    return [`door to ${other}`, `${other} door`, 'door'];
  }
  const base = e.baseReferents();
  const parent = e.parent;
  if (!parent || e.kind === 'room' || e.kind === 'inventory') return base;
  const parentNames = parent.kind === 'inventory' ? ['inventory'] : parent.baseReferents();
  const out = [...base];
  for (const b of base) for (const p of parentNames) out.push(`${b} in ${p}`, `${b} on ${p}`);
  return out;
}

function candidates(world: World, template: Template, cache: Map<string, [Entity, string[]][]>): [Entity, string[]][] {
  const key = template.id === 'go' ? 'go' : template.id === 'connect' || template.id === 'disconnect' || template.id === 'look at' ? 'terminals' : 'things';
  let list = cache.get(key);
  if (!list) {
    // `go` reaches every room by name (and refuses the unreachable ones with a message), and
    // accepts any visible thing so that "go to stove" gets ScienceWorld's refusal.
    const things: Entity[] = key === 'go' ? [...world.rooms, ...world.accessible().filter((t) => t.kind !== 'room')] : world.accessible();
    if (key === 'terminals') for (const th of world.accessible()) for (const term of th.terminals ?? []) things.push(term);
    list = things.map((e) => [e, referents(world, e)]);
    cache.set(key, list);
  }
  return list;
}

/** Strips `prefix` from `text` on a word boundary; undefined if it does not start so. */
function consume(text: string, prefix: string): string | undefined {
  if (!text.startsWith(prefix)) return undefined;
  const rest = text.slice(prefix.length);
  if (rest !== '' && !rest.startsWith(' ')) return undefined;
  return rest.trimStart();
}

export function parse(world: World, input: string): ParseResult {
  const text = normalize(input);
  if (text === '') return { kind: 'none' };
  const found: Resolved[] = [];
  const seen = new Set<string>();
  const cache = new Map<string, [Entity, string[]][]>();
  const add = (id: ActionId, args: Entity[]): void => {
    const key = `${id}|${args.map((a) => (a instanceof Terminal ? `${a.owner.id}.${a.name}` : a.id)).join(',')}`;
    if (!seen.has(key)) {
      seen.add(key);
      found.push({ id, args });
    }
  };
  for (const template of TEMPLATES) {
    for (const verb of template.verbs) {
      const rest = consume(text, verb);
      if (rest === undefined) continue;
      if (template.arity === 0) {
        if (rest === '') add(template.id, []);
        continue;
      }
      for (const [first, names] of candidates(world, template, cache)) {
        for (const name of names) {
          const after = consume(rest, name);
          if (after === undefined) continue;
          if (template.arity === 1) {
            if (after === '') add(template.id, [first]);
            continue;
          }
          for (const join of template.joins ?? []) {
            const tail = consume(after, join);
            if (tail === undefined || tail === '') continue;
            for (const [second, names2] of candidates(world, template, cache)) {
              if (names2.includes(tail)) add(template.id, [first, second]);
            }
          }
        }
      }
    }
  }
  if (found.length === 0) return { kind: 'none' };
  if (found.length === 1) return { kind: 'one', action: found[0] as Resolved };
  return { kind: 'many', actions: found };
}

const VERB: Partial<Record<ActionId, string>> = { go: 'go to', focus: 'focus on', move: 'move', pour: 'pour', dunk: 'dunk', use: 'use', connect: 'connect' };
const JOIN: Partial<Record<ActionId, string>> = { move: 'to', pour: 'into', dunk: 'into', use: 'on', connect: 'to' };

/** An action written out with `name(e)` for each object ("move metal pot to stove"). */
export function phrase(action: Resolved, name: (e: Entity) => string): string {
  const verb = VERB[action.id] ?? action.id;
  const [a, b] = action.args;
  if (!a) return verb;
  if (!b) return `${verb} ${name(a)}`;
  return `${verb} ${name(a)} ${JOIN[action.id] ?? 'to'} ${name(b)}`;
}

/** The ambiguity prompt, as ScienceWorld prints it. */
export function ambiguityPrompt(world: World, actions: readonly Resolved[]): string {
  const lines = actions.map((a, i) => `${i}:\t${phrase(a, (e) => (e instanceof Terminal ? `${e.name} on ${clarify(world, e.owner)}` : clarify(world, e)))}`);
  return `Ambiguous request: Please enter the number for the action you intended (or blank to cancel):\n${lines.join('\n')}\n`;
}

export function sameAction(a: Resolved, b: Resolved): boolean {
  return a.id === b.id && a.args.length === b.args.length && a.args.every((x, i) => x === b.args[i]);
}
