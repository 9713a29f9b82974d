/**
 * A training diagnostic, not a benchmark: how far a BabyAI policy gets that remembers a MAP of
 * everything it has seen. experiments/babyai-policies/memory-policy.ts remembers its own actions and searches at
 * random; this one keeps every cell it has seen (walls, free cells, doors, objects) in world
 * coordinates (experiments/babyai-policies/babyai-map.ts) and searches with it (experiments/babyai-policies/map-search.ts):
 *   - the action that does the current sub-goal, when one is available and reaches the object;
 *   - else, when an object of the sub-goal was seen before, the move that ends nearest to it
 *     (shortest path over the cells seen to be passable);
 *   - a locked door with its key seen: fetch the key and open the door;
 *   - else the move that reveals the most unseen cells within two turns, then the one that ends
 *     nearest to the edge of the seen area (frontier exploration).
 * It reads the agent's position from the env instead of working it out from its moves and views,
 * and simulates candidate actions on a copy of the game only to learn where the agent ends and
 * which cells come into view, never what they hold before it sees them: an optimistic stand-in
 * for a policy that maps. It shows what memory plus search can reach within a horizon.
 *
 *   npx tsx experiments/babyai-policies/map-policy.ts [HORIZON] [SPLIT]   (default 20 test)
 *   TRACE=Level …            also prints the actions of that level's failed episodes
 *   WALL_CELL_WORTH=W …      what an unseen cell of the room grid's walls counts (default 0.25)
 */
import { pathToFileURL } from 'node:url';
import type { ResetResult, StepResult } from '../../envs/contract.ts';
import type { BabyAIEnv } from '../../envs/babyai/env.ts';
import { EMPTY, type World } from '../../envs/babyai/world.ts';
import { getEnv } from '../../envs/index.ts';
import { actionsNaming as named, describes, lcg, printByLevel, subGoals, type GoalObject } from './babyai-heuristic.ts';
import { located, MapMemory, type Start } from './babyai-map.ts';
import { approach, explore, MOVES, simulate, touched, unlock } from './map-search.ts';

export interface MapEpisode {
  readonly success: boolean;
  /** Whether an object of the sub-goal the policy ended on was ever in view (its map holds one). */
  readonly goalSeen: boolean;
}

/** Plays one task with the map policy; `trace` collects the actions taken. */
export async function playWithMap(taskId: string, horizon: number, rand: () => number, trace: string[] = [], wallCellWorth = 0.25): Promise<MapEpisode> {
  const instance = getEnv('babyai').make() as BabyAIEnv;
  let result: ResetResult | StepResult = await instance.reset({ taskId, seed: 0 });
  const first = instance.internalGame();
  const width = first.world.width;
  const start: Start = { x: first.world.agentX, y: first.world.agentY, dir: first.world.agentDir, roomSize: first.roomSize };
  const mem = new MapMemory(width, first.world.height, first.roomSize, wallCellWorth);
  const goals = subGoals(result.observation.split('\n')[0]!.replace('Your goal: ', ''));
  const find = (o: GoalObject) => mem.find(o).filter((idx) => located(o, start, width, idx));
  let at = 0;
  let last = '';
  for (let t = 0; t < horizon && at < goals.length; t++) {
    const g = instance.internalGame();
    mem.update(g.world);
    const actions = result.info.availableActions ?? [];
    /** The action with this verb on an object of the description, at the place the goal names. */
    const act = (prefix: string, o: GoalObject) => {
      // Simulated, because a macro can end elsewhere than its name says (AgentGym's planner
      // plans inside the view's box); a named action that would not reach the object is skipped.
      const cells = find(o);
      return named(actions, prefix, o).find((a) => {
        const w = simulate(g, a);
        return w !== null && cells.includes(touched(g.world, w));
      });
    };
    const carrying = g.world.carrying >= 0 ? g.world.obj(g.world.carrying) : null;
    const goal = goals[at]!;
    const keyColor = carrying?.type === 'key' ? carrying.color : undefined;
    // Holding something else: put it down first (after a turn, if it was just picked up).
    const putDown = carrying && !describes(goal.obj, carrying) ? (last.startsWith('pickup') ? 'turn left' : actions.includes('drop') ? 'drop' : undefined) : null;
    let action: string | undefined;
    let done = false;
    // The object to reach now, and the action that completes this sub-goal when in view.
    let target: GoalObject = goal.obj;
    if (goal.verb === 'go to') [action, done] = [act('go to', goal.obj), true];
    else if (goal.verb === 'open') {
      // "toggle and go through" walks on after opening, and only the last primitive counts:
      // a door is opened by going to it and toggling it.
      const front = g.world.get(g.world.frontX, g.world.frontY);
      const facing = front >= 0 && find(goal.obj).includes(g.world.frontY * width + g.world.frontX) && !g.world.obj(front).isOpen;
      if (facing && actions.includes('toggle')) [action, done] = ['toggle', true];
    } else if (goal.verb === 'pick up') {
      if (putDown !== null) action = putDown;
      else [action, done] = [act('pickup', goal.obj), true];
    } else if (goal.verb === 'put' && goal.next) {
      const next = goal.next;
      const nextCells = new Set(find(next).flatMap((c) => [c - 1, c + 1, c - width, c + width]));
      const dropsNextTo = (w: World) => w.get(w.frontX, w.frontY) === EMPTY && nextCells.has(w.frontY * width + w.frontX);
      if (putDown !== null) action = putDown;
      else if (!carrying) action = act('pickup', goal.obj);
      else if (dropsNextTo(g.world)) [action, done] = ['drop', true];
      else {
        target = next;
        action = MOVES(actions).find((a) => {
          const w = simulate(g, a);
          return w !== null && dropsNextTo(w);
        });
      }
    }
    if (action === undefined) {
      done = false;
      const moves = MOVES(actions);
      const wantsPickup = goal.verb === 'pick up' || (goal.verb === 'put' && !carrying);
      const targets = find(target);
      const inView = g.view().objs.some((o) => targets.includes(o.y * width + o.x));
      if (wantsPickup && inView && !carrying) {
        // In view but no path: something blocks it. Pick up the nearest other object.
        action = actions.find((a) => a.startsWith('pickup'));
      }
      if (goal.verb === 'open' && targets.length > 0 && targets.every((idx) => mem.objs.get(idx)?.state === 'locked')) {
        action ??= unlock(g, mem, actions, moves, keyColor, rand);
      }
      action ??= targets.length > 0 ? approach(g, mem, moves, targets, rand) : undefined;
      // A locked door whose key has been seen is worth opening before searching on: the
      // levels lock a room for a reason.
      const lockedWithKey = mem.find({ color: undefined, type: 'door' }, 'locked').some((idx) => {
        const color = mem.objs.get(idx)!.color;
        return color === keyColor || mem.find({ color, type: 'key' }).length > 0;
      });
      if (lockedWithKey && targets.length === 0) action ??= unlock(g, mem, actions, moves, keyColor, rand);
      action ??= explore(g, mem, moves, rand);
      action ??= unlock(g, mem, actions, moves, keyColor, rand);
      action ??= moves[Math.floor(rand() * moves.length)] ?? 'turn left';
    }
    result = await instance.step(action);
    trace.push(`${action}${result.info.invalidAction ? ' (invalid)' : ''}`);
    last = action;
    // A macro can stop short (AgentGym stops it when the view stops changing): move on to the
    // next sub-goal only when this one is seen done.
    if (done && !result.info.invalidAction) {
      const w = instance.internalGame().world;
      mem.update(w);
      const front = w.frontY * width + w.frontX;
      const held = w.carrying >= 0 ? w.obj(w.carrying) : null;
      const ok =
        goal.verb === 'go to' ? find(goal.obj).includes(front)
        : goal.verb === 'open' ? find(goal.obj).includes(front) && mem.objs.get(front)?.state === 'open'
        : goal.verb === 'pick up' ? held !== null && describes(goal.obj, held)
        : held === null;
      if (ok) at += 1;
    }
    if ('terminated' in result && (result.terminated || result.truncated)) break;
  }
  await instance.close();
  const goal = goals[Math.min(at, goals.length - 1)];
  return { success: result.info.success === true, goalSeen: goal !== undefined && find(goal.obj).length > 0 };
}

/** The CLI: success per level and overall on a split. */
async function main(): Promise<void> {
  const horizon = Number(process.argv[2] ?? 20);
  const split = (process.argv[3] ?? 'test') as 'train' | 'test';
  const only = process.env.TRACE;
  const wallCellWorth = Number(process.env.WALL_CELL_WORTH ?? 0.25);
  const rand = lcg();
  const byLevel = new Map<string, number[]>();
  let neverSeen = 0;
  for (const taskId of getEnv('babyai').tasks(split)) {
    const level = taskId.split('/')[0]!;
    const trace: string[] = [];
    const { success, goalSeen } = await playWithMap(taskId, horizon, rand, trace, wallCellWorth);
    if (only && level === only && !success) console.log(taskId, trace.join(' | '));
    if (!success && !goalSeen) neverSeen += 1;
    byLevel.set(level, [...(byLevel.get(level) ?? []), success ? 1 : 0]);
  }
  const { solved, total } = printByLevel(byLevel);
  console.log(`failed ${total - solved}, of which the sub-goal's object never came into view: ${neverSeen}`);
  console.log(`horizon ${horizon} success ${(solved / total).toFixed(3)} (${solved}/${total})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
