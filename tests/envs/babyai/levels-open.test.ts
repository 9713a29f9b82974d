/**
 * Issue 28: the Open levels of AgentGym's 40 (minigrid/envs/babyai/open.py, registered in
 * minigrid/__init__.py as BabyAI-Open, -OpenRedDoor, -OpenDoorLoc, -OpenRedBlueDoorsDebug,
 * -OpenDoorsOrderN4Debug).
 */
import { describe, expect, it } from 'vitest';
import { Game } from '../../../envs/babyai/game.ts';
import { generateLevel } from '../../../envs/babyai/level.ts';
import { expectMissions, level, oracleWins } from './level-harness.ts';

describe('babyai Open levels', () => {
  it('generate the missions of open.py', () => {
    expectMissions('Open', /^open (the|a) (red|green|blue|purple|yellow|grey) door$/);
    expectMissions('OpenRedDoor', /^open the red door$/);
    expectMissions('OpenDoorLoc', /^open (the|a) door (on your left|on your right|in front of you|behind you)$/);
    expectMissions('OpenRedBlueDoorsDebug', /^open the red door, then open the blue door$/);
    const order = expectMissions('OpenDoorsOrderN4Debug', /^open the \w+ door((, then| after you) open the \w+ door)?$/);
    // _rand_int(0, 3): a single door, "then" and "after you" all occur.
    expect(new Set(order.map((g) => g.mission.includes(', then') ? 'then' : g.mission.includes('after you') ? 'after' : 'one'))).toEqual(new Set(['one', 'then', 'after']));
  });

  it('fix max_steps as open.py does: 20 * 6^2 for the two-door levels', () => {
    expect(generateLevel(level('OpenRedBlueDoorsDebug'), 0).maxSteps).toBe(720);
    expect(generateLevel(level('OpenDoorsOrderN4Debug'), 0).maxSteps).toBe(720);
    expect(generateLevel(level('OpenRedDoor'), 0).maxSteps).toBe(50);
  });

  it('strict levels fail when the blue door is opened before the red one', () => {
    const g = Game.fromLevel(generateLevel(level('OpenRedBlueDoorsDebug'), 3));
    // The blue door is on the right wall of the middle room (door_idx 0).
    const blue = g.world.objs.find((o) => o.type === 'door' && o.color === 'blue')!;
    const w = g.world;
    [w.agentX, w.agentY, w.agentDir] = [blue.x - 1, blue.y, 0];
    g.primitive(5);
    expect(g.failed).toBe(true);
    expect(g.lastReward).toBe(0);
  });

  it('the oracle solves at least 98% of 50 seeds of each', async () => {
    for (const [name, turns] of [['Open', 40], ['OpenRedDoor', 20], ['OpenDoorLoc', 20], ['OpenRedBlueDoorsDebug', 30], ['OpenDoorsOrderN4Debug', 30]] as const) {
      const { wins, lost } = await oracleWins(name, turns);
      expect(wins, `${name}: lost ${lost.join(', ')}`).toBeGreaterThanOrEqual(49);
    }
  }, 300_000);
});
