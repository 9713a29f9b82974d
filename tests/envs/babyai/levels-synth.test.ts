/**
 * Issue 28: SynthS5R2, SynthSeq, MiniBossLevel, BossLevel and BossLevelNoUnlock
 * (minigrid/envs/babyai/synth.py over core/levelgen.py; SynthS5R2's kwargs in minigrid/__init__.py).
 */
import { describe, expect, it } from 'vitest';
import { babyaiDefinition } from '../../../envs/babyai/index.ts';
import { generateLevel } from '../../../envs/babyai/level.ts';
import { expectMissions, level, oracleWins } from './level-harness.ts';

const COLOR = '(red|green|blue|purple|yellow|grey)';
const LOC = '( (in front of you|behind you|on your left|on your right))?';
/** One action of LevelGen's grammar; `loc` adds its location words. */
const action = (loc: string) => {
  const obj = `(the|a) (${COLOR} )?(ball|box|key)${loc}`;
  const any = `(the|a) (${COLOR} )?(ball|box|key|door)${loc}`;
  return `(go to ${any}|pick up ${obj}|open (the|a) (${COLOR} )?door${loc}|put ${obj} next to ${any})`;
};
const and = (loc: string) => `${action(loc)}( and ${action(loc)})?`;
const seq = (loc: string) => new RegExp(`^${and(loc)}((, then | after you )${and(loc)})?$`);

const lockedDoors = (name: string, seed: number) =>
  generateLevel(level(name), seed).world.objs.filter((o) => o.type === 'door' && o.isLocked).length;

describe('babyai Synth and Boss levels', () => {
  it('generate LevelGen missions with the kwargs of synth.py', () => {
    // Synth: single actions, no location words.
    expectMissions('SynthS5R2', new RegExp(`^${action('')}$`));
    const seqs = expectMissions('SynthSeq', seq(LOC), 30).map((g) => g.mission);
    expect(seqs.some((m) => m.includes(' after you '))).toBe(true);
    expect(seqs.some((m) => m.includes(', then '))).toBe(true);
    expectMissions('MiniBossLevel', seq(LOC), 30);
    expectMissions('BossLevel', seq(LOC), 20);
    expectMissions('BossLevelNoUnlock', seq(LOC), 20);
    // max_steps = num_navs * room_size^2 * rows * cols (roomgrid_level.py, RoomGridLevel.reset).
    expect(generateLevel(level('SynthS5R2'), 0).world.width).toBe(13);
    expect(generateLevel(level('SynthS5R2'), 0).maxSteps % (25 * 6)).toBe(0);
    expect(generateLevel(level('MiniBossLevel'), 0).maxSteps % (25 * 4)).toBe(0);
    expect(generateLevel(level('BossLevel'), 0).maxSteps % (64 * 9)).toBe(0);
  });

  it('a locked room in about half of Synth and Boss levels, a quarter of MiniBoss, none without unlock', () => {
    const share = (name: string) => Array.from({ length: 100 }, (_, s) => lockedDoors(name, s)).filter((n) => n > 0).length;
    expect(share('SynthS5R2')).toBeGreaterThan(35);
    expect(share('SynthS5R2')).toBeLessThan(65);
    expect(share('BossLevel')).toBeGreaterThan(35);
    expect(share('MiniBossLevel')).toBeGreaterThan(12);
    expect(share('MiniBossLevel')).toBeLessThan(38);
    expect(share('BossLevelNoUnlock')).toBe(0);
  });

  it('shows ", then" and "after you" as AgentGym does (environment.py, BabyAIEnv.reset: "then" → "and", "after you" → "and")', async () => {
    const env = babyaiDefinition.make();
    const goal = async (taskId: string) => (await env.reset({ taskId })).observation.split('\n')[0];
    expect(generateLevel(level('SynthSeq'), 8).mission).toBe('pick up the yellow ball, then open the grey door and go to the red key');
    expect(await goal('SynthSeq/8')).toBe('Your goal: pick up the yellow ball, and open the grey door and go to the red key');
    expect(generateLevel(level('SynthSeq'), 15).mission).toBe('pick up a ball after you open a yellow door');
    expect(await goal('SynthSeq/15')).toBe('Your goal: pick up a ball and open a yellow door');
    await env.close();
  });

  it('the oracle solves them (50 seeds measured by script, see docs/envs/babyai.md; 5 here for time)', async () => {
    for (const name of ['SynthS5R2', 'SynthSeq', 'MiniBossLevel', 'BossLevel', 'BossLevelNoUnlock']) {
      const { wins, lost } = await oracleWins(name, 50, 5);
      expect(wins, `${name}: lost ${lost.join(', ')}`).toBe(5);
    }
  }, 300_000);
});
