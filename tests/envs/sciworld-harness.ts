/** Small helpers for the SciWorld tests: a furnished house and a way to type commands into it. */
import { Rng } from '../../envs/rng.ts';
import { execute } from '../../envs/sciworld/actions.ts';
import { NO_MATCH } from '../../envs/sciworld/env.ts';
import { buildHouse, type RoomName } from '../../envs/sciworld/house.ts';
import { ambiguityPrompt, parse } from '../../envs/sciworld/parser.ts';
import type { Thing } from '../../envs/sciworld/thing.ts';
import type { World } from '../../envs/sciworld/world.ts';

/** The standard house with every door open, the agent in `start`. */
export function house(start: RoomName = 'kitchen'): World {
  return buildHouse(new Rng(1), { start, closedDoorChance: 0 });
}

/** Types `input` as the env would (without focus/task, which belong to a task), then ticks. */
export function type(world: World, input: string): string {
  const parsed = parse(world, input);
  if (parsed.kind === 'none') return NO_MATCH;
  if (parsed.kind === 'many') return ambiguityPrompt(world, parsed.actions);
  const outcome = execute(world, parsed.action);
  world.tick(outcome.ticks);
  return outcome.message;
}

export function find(world: World, name: string): Thing {
  const thing = world.live().find((t) => t.name === name) ?? world.things.find((t) => t.name === name);
  if (!thing) throw new Error(`no "${name}" in the world`);
  return thing;
}
