import { describe, it, expect } from 'vitest';
import { Game } from '../../envs/babyai/game.ts';
import { generateLevel } from '../../envs/babyai/level.ts';
import { LEVELS } from '../../envs/babyai/index.ts';
import { blockedCells, findPath, findPaths, type PathGoal, type PathQuery } from '../../envs/babyai/planner.ts';
import { computeView, viewGrid, type View } from '../../envs/babyai/view.ts';
import { DIR_TO_VEC } from '../../envs/babyai/world.ts';

/** AgentGym's `find_path` as first written here: one search per goal, with the original's quirks. */
function referenceFindPath(view: View, blocked: Uint8Array, q: PathQuery): number[] | null {
  const w = view.xhi - view.xlo + 1;
  const h = view.yhi - view.ylo + 1;
  const id = (x: number, y: number, d: number) => (x - view.xlo + (y - view.ylo) * w) * 4 + d;
  const popped = new Uint8Array(w * h * 4);
  const parent = new Int32Array(w * h * 4).fill(-1);
  const via = new Int8Array(w * h * 4);
  const start = id(q.x, q.y, q.dir);
  const queue: number[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const s = queue[head] as number;
    popped[s] = 1;
    const d = s & 3;
    const cell = s >> 2;
    const x = (cell % w) + view.xlo;
    const y = Math.floor(cell / w) + view.ylo;
    const [dx, dy] = DIR_TO_VEC[d] as readonly [number, number];
    const done = q.arrive ? x === q.goalX && y === q.goalY : q.goalX - x === dx && q.goalY - y === dy;
    if (done) {
      const path: number[] = [];
      for (let t = s; t !== start; t = parent[t] as number) path.push(via[t] as number);
      return path.reverse();
    }
    for (const action of [2, 0, 1]) {
      let [nx, ny, nd] = [x, y, d];
      if (action === 2) [nx, ny] = [x + dx, y + dy];
      else nd = action === 0 ? (d + 3) % 4 : (d + 1) % 4;
      if (nx < view.xlo || nx > view.xhi || ny < view.ylo || ny > view.yhi) continue;
      const t = id(nx, ny, nd);
      if (popped[t] || blocked[nx - view.xlo + (ny - view.ylo) * w]) continue;
      queue.push(t);
      parent[t] = s;
      via[t] = action;
    }
  }
  return null;
}

/** Games along seeded random walks (macro actions) through every level: many views, doors, boxes. */
function* visitedGames(): Generator<Game> {
  let state = 7;
  const next = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (const level of LEVELS) {
    for (let seed = 0; seed < 4; seed++) {
      const game = Game.fromLevel(generateLevel(level, seed));
      for (let turn = 0; turn < 12 && !game.success && !game.truncated; turn++) {
        yield game;
        const actions = [...game.macros().actions.keys()];
        game.act(actions[Math.floor(next() * actions.length)] as string);
      }
    }
  }
}

describe('babyai path planner', () => {
  it('one search for every goal returns the paths of one search per goal', () => {
    let compared = 0;
    let withPath = 0;
    for (const game of visitedGames()) {
      const view = computeView(game.world);
      const blocked = blockedCells(view);
      const { agentX: x, agentY: y, agentDir: dir } = game.world;
      const goals: PathGoal[] = view.objs
        .filter((o) => o.type !== 'wall')
        .flatMap((o) => [{ goalX: o.x, goalY: o.y, arrive: false }, { goalX: o.x, goalY: o.y, arrive: true }]);
      const together = findPaths(view, blocked, x, y, dir, goals);
      goals.forEach((goal, g) => {
        const reference = referenceFindPath(view, blocked, { x, y, dir, ...goal });
        expect(together[g]).toEqual(reference);
        expect(findPath(view, blocked, { x, y, dir, ...goal })).toEqual(reference);
        compared += 1;
        if (reference !== null) withPath += 1;
      });
    }
    // The walk must have produced real cases, found and not found.
    expect(compared).toBeGreaterThan(1_000);
    expect(withPath).toBeGreaterThan(100);
    expect(compared - withPath).toBeGreaterThan(100);
  });

  it('the image-only view equals the full view\'s image', () => {
    let n = 0;
    for (const game of visitedGames()) {
      expect(Array.from(viewGrid(game.world).image)).toEqual(Array.from(computeView(game.world).image));
      n += 1;
    }
    expect(n).toBeGreaterThan(200);
  });
});
