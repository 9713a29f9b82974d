/**
 * Issue 28: PickupDistDebug and PickupAbove (minigrid/envs/babyai/pickup.py) and the Unlock
 * levels (minigrid/envs/babyai/unlock.py) of AgentGym's 40.
 */
import { describe, expect, it } from 'vitest';
import { Game } from '../../../envs/babyai/game.ts';
import { generateLevel } from '../../../envs/babyai/level.ts';
import { expectMissions, level, oracleWins } from './level-harness.ts';

const COLOR = '(red|green|blue|purple|yellow|grey)';

describe('babyai PickupDistDebug and PickupAbove', () => {
  it('generate the missions of pickup.py', () => {
    const dist = expectMissions('PickupDistDebug', new RegExp(`^pick up (the|a) (${COLOR} )?(ball|box|key|object)$`));
    // select_by type, color or both: all three shapes occur.
    expect(dist.some((g) => g.mission.endsWith(' object'))).toBe(true);
    expect(dist.some((g) => !new RegExp(COLOR).test(g.mission))).toBe(true);
    expectMissions('PickupAbove', new RegExp(`^pick up the ${COLOR} (ball|box|key)$`));
    expect(generateLevel(level('PickupAbove'), 0).maxSteps).toBe(288);
  });

  it('PickupDistDebug fails on picking up another object', () => {
    const g = Game.fromLevel(generateLevel(level('PickupDistDebug'), 2));
    const w = g.world;
    const wrong = w.objs.find((o) => !('desc' in g.instrs && g.instrs.desc.objSet.includes(o.id)))!;
    for (let d = 0; d < 4; d++) {
      const [x, y] = [wrong.x - [1, 0, -1, 0][d]!, wrong.y - [0, 1, 0, -1][d]!];
      if (w.get(x, y) === -1) {
        [w.agentX, w.agentY, w.agentDir] = [x, y, d];
        break;
      }
    }
    g.primitive(3);
    expect(w.carrying).toBe(wrong.id);
    expect(g.failed).toBe(true);
  });

  it('the oracle solves at least 98% of 50 seeds of each', async () => {
    for (const name of ['PickupDistDebug', 'PickupAbove']) {
      const { wins, lost } = await oracleWins(name, 20);
      expect(wins, `${name}: lost ${lost.join(', ')}`).toBeGreaterThanOrEqual(49);
    }
  }, 120_000);
});

describe('babyai Unlock levels', () => {
  it('generate the missions of unlock.py with its step limits', () => {
    expectMissions('Unlock', new RegExp(`^open (the|a) ${COLOR} door$`));
    expectMissions('UnlockLocalDist', /^open the door$/);
    expectMissions('KeyInBox', /^open the door$/);
    expectMissions('UnlockPickupDist', new RegExp(`^pick up the ${COLOR} box$`));
    expectMissions('BlockedUnlockPickup', /^pick up the box$/);
    expectMissions('UnlockToUnlock', /^pick up the ball$/);
    // UnlockPickup's `if max is None` never fixes max_steps: 1 nav * 6^2 * 2 rooms.
    expect(generateLevel(level('UnlockPickupDist'), 0).maxSteps).toBe(72);
    expect(generateLevel(level('BlockedUnlockPickup'), 0).maxSteps).toBe(576);
    expect(generateLevel(level('UnlockToUnlock'), 0).maxSteps).toBe(1080);
  });

  it('lays out keys, boxes and the blocking ball as unlock.py does', () => {
    for (let seed = 0; seed < 20; seed++) {
      const box = generateLevel(level('KeyInBox'), seed).world;
      const door = box.objs.find((o) => o.type === 'door')!;
      const held = box.objs.find((o) => o.type === 'box')!;
      expect(door.isLocked).toBe(true);
      expect(box.obj(held.contains)).toMatchObject({ type: 'key', color: door.color, x: -1 });
      const blocked = generateLevel(level('BlockedUnlockPickup'), seed).world;
      const locked = blocked.objs.find((o) => o.type === 'door')!;
      expect(blocked.obj(blocked.get(locked.x - 1, locked.y)).type).toBe('ball');
      const chain = generateLevel(level('UnlockToUnlock'), seed).world;
      const doors = chain.objs.filter((o) => o.type === 'door');
      expect(doors.map((d) => d.isLocked)).toEqual([true, true]);
      // The key of the left door lies in the right room, beyond the other locked door.
      const keyA = chain.objs.find((o) => o.type === 'key' && o.color === doors[0]!.color)!;
      expect(keyA.x).toBeGreaterThan(doors[1]!.x);
    }
  });

  it('the oracle solves at least 98% of 50 seeds of each but KeyInBox', async () => {
    for (const [name, turns] of [['Unlock', 40], ['UnlockLocalDist', 25], ['UnlockPickupDist', 25], ['BlockedUnlockPickup', 25], ['UnlockToUnlock', 30]] as const) {
      const { wins, lost } = await oracleWins(name, turns);
      expect(wins, `${name}: lost ${lost.join(', ')}`).toBeGreaterThanOrEqual(49);
    }
  }, 300_000);

  it('KeyInBox cannot be solved through AgentGym macro actions: none toggles a box', async () => {
    // agentenv-babyai's postprocess_obs offers `toggle` only facing a closed or locked door, and
    // `toggle and go through` ends at a door, so the key never leaves its box.
    const { wins } = await oracleWins('KeyInBox', 15, 5);
    expect(wins).toBe(0);
  }, 120_000);
});
