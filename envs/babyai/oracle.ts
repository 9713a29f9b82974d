/**
 * The BabyAI oracle: it reads the env's full state and searches over AgentGym's macro
 * actions (simulated on copies of the game) for the shortest sequence of agent turns that
 * completes the mission, guided by `estimateCost`. The plan is replayed while the env stays
 * on it and recomputed when it does not (e.g. an agent took other actions in between).
 */
import type { Oracle } from '../contract.ts';
import type { BabyAIEnv } from './env.ts';
import type { Game } from './game.ts';
import { SeqInstr, type Instr } from './instructions.ts';
import { estimateCost } from './oracle-cost.ts';

/** Search effort per plan; enough for the 3×3-room levels with room to spare. */
const MAX_EXPANSIONS = 1500;
/** Primitive steps one macro action is worth when ranking search nodes. */
const STEPS_PER_TURN = 3;

interface Node {
  readonly game: Game;
  readonly actions: readonly string[];
  readonly cost: number;
  readonly f: number;
}

export class BabyAIOracle implements Oracle {
  private plan: string[] = [];
  private expected = '';

  constructor(private readonly env: BabyAIEnv) {}

  async next(): Promise<string> {
    const game = this.env.internalGame();
    if (this.plan.length === 0 || stateKey(game) !== this.expected) this.plan = planMacros(game);
    const action = this.plan.shift() ?? 'check available actions';
    const after = game.clone();
    after.act(action);
    this.expected = stateKey(after);
    return action;
  }
}

/**
 * A best-first search over macro actions; returns the turns to success or toward it. A mission
 * of several parts ("and", ", then", "after you") is planned one part at a time: the search
 * ends when a part is done (its verifier's success sticks), since the cost estimate charges
 * the remaining parts a flat amount and would otherwise hold the agent back from finishing one.
 */
export function planMacros(root: Game): string[] {
  const partsAtRoot = partsLeft(root.instrs);
  const open = new MinHeap<Node>((a, b) => a.f - b.f || a.cost - b.cost);
  const seen = new Map<string, number>([[stateKey(root), 0]]);
  const rootCost = estimateCost(root);
  open.push({ game: root, actions: [], cost: rootCost, f: rootCost / STEPS_PER_TURN });
  let best: Node | null = null;
  for (let expanded = 0; expanded < MAX_EXPANSIONS && open.size > 0; expanded++) {
    const node = open.pop() as Node;
    for (const action of node.game.macros().actions.keys()) {
      if (action === 'check available actions') continue;
      const child = node.game.clone();
      const outcome = child.act(action);
      if (outcome.kind !== 'moved') continue;
      const actions = [...node.actions, action];
      if (child.success || partsLeft(child.instrs) < partsAtRoot) return actions;
      // A failure (strict levels) ends the episode with nothing.
      if (child.failed) continue;
      if (child.truncated) continue;
      const key = stateKey(child);
      const known = seen.get(key);
      if (known !== undefined && known <= actions.length) continue;
      seen.set(key, actions.length);
      const cost = estimateCost(child);
      if (cost === Infinity) continue;
      const next = { game: child, actions, cost, f: actions.length + cost / STEPS_PER_TURN };
      if (!best || cost < best.cost) best = next;
      open.push(next);
    }
  }
  return best ? [...best.actions] : ['turn left'];
}

/** Action parts of the mission not yet done. */
function partsLeft(instr: Instr): number {
  if (!(instr instanceof SeqInstr)) return 1;
  return (instr.aDone === 'success' ? 0 : partsLeft(instr.a)) + (instr.bDone === 'success' ? 0 : partsLeft(instr.b));
}

/** Everything that decides what happens next: agent, objects, doors, verifier progress. */
export function stateKey(game: Game): string {
  const w = game.world;
  let key = `${w.agentX},${w.agentY},${w.agentDir},${w.carrying}|`;
  for (const o of w.objs) key += `${o.x},${o.y},${o.isOpen ? 1 : 0}${o.isLocked ? 1 : 0};`;
  return key + verifierKey(game.instrs);
}

function verifierKey(instr: Instr): string {
  if (instr instanceof SeqInstr) return `(${instr.aDone}${instr.bDone}${verifierKey(instr.a)}${verifierKey(instr.b)})`;
  const pre = 'preCarrying' in instr ? instr.preCarrying : '';
  const descs = 'desc' in instr ? [instr.desc] : [instr.descMove, instr.descFixed];
  return `[${pre}${descs.map((d) => d.objPoss.join(' ')).join('/')}]`;
}

class MinHeap<T> {
  private items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => number) {}
  get size(): number {
    return this.items.length;
  }
  push(item: T): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (this.less(a[i] as T, a[p] as T) >= 0) break;
      [a[i], a[p]] = [a[p] as T, a[i] as T];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      for (let i = 0; ; ) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let m = i;
        if (l < a.length && this.less(a[l] as T, a[m] as T) < 0) m = l;
        if (r < a.length && this.less(a[r] as T, a[m] as T) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m] as T, a[i] as T];
        i = m;
      }
    }
    return top;
  }
}
