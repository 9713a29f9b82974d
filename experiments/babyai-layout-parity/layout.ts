/**
 * One level's grid as minigrid_layouts.py prints it (a JSON line with sorted keys), from our
 * generator with numpy's stream in minigridExact mode: what AgentGym's server shows for the item.
 */
import { generateLevel } from '../../envs/babyai/level.ts';
import { LEVEL_BY_NAME } from '../../envs/babyai/tasks.ts';
import { EMPTY, WALL, type World, type WorldObj } from '../../envs/babyai/world.ts';
import { NumpyRng } from '../../envs/numpy-random.ts';

function describe(world: World, obj: WorldObj): Record<string, unknown> {
  const out: Record<string, unknown> = { type: obj.type, color: obj.color };
  if (obj.type === 'door') out.state = obj.isLocked ? 'locked' : obj.isOpen ? 'open' : 'closed';
  if (obj.type === 'box' && obj.contains >= 0) out.contains = describe(world, world.obj(obj.contains));
  return out;
}

/** JSON with object keys sorted at every depth, so two layouts compare as strings. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${stableStringify(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Our layout of `level` at `seed`, in minigrid_layouts.py's format (before stableStringify). */
export function ourLayout(level: string, seed: number, options: { readonly minigridExact?: boolean } = {}): Record<string, unknown> {
  const spec = LEVEL_BY_NAME.get(level);
  if (!spec) throw new Error(`no BabyAI level ${level}`);
  const { world, mission } = generateLevel(spec, seed, { rng: new NumpyRng(seed), minigridExact: options.minigridExact ?? true });
  const objects: Record<string, unknown>[] = [];
  for (let y = 0; y < world.height; y++) {
    for (let x = 0; x < world.width; x++) {
      const code = world.get(x, y);
      if (code !== EMPTY && code !== WALL) objects.push({ ...describe(world, world.obj(code)), x, y });
    }
  }
  return {
    level, seed, mission,
    agent: [world.agentX, world.agentY, world.agentDir],
    carrying: world.carrying >= 0 ? describe(world, world.obj(world.carrying)) : null,
    objects,
  };
}
