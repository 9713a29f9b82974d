/**
 * Issue 28: BabyAI on the AgentGym HTTP endpoint as agentenv-babyai serves it
 * (agentenv-babyai/agentenv_babyai/environment.py): data_idx → level `all_levels[data_idx % 40 + 1]`,
 * seed `data_idx // 40`; and, in compat mode (the default), `BabyAI.update`'s done rule: a success
 * whose reward is ≤ 0.5 does not end the episode, `reward` stays the last macro's through refused
 * and `check` actions, and `BabyAIEnv.step`'s `score` is the running sum of those rewards.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { babyaiDefinition, BabyAIEnv } from '../../envs/babyai/index.ts';
import { LEVEL_BY_NAME } from '../../envs/babyai/tasks.ts';
import { request } from '../transport/agentgym-http-request.ts';

/** `all_levels` of environment.py, keys 1..40, as the original writes them. */
const ALL_LEVELS_PY = [
  'BabyAI-GoToRedBallGrey-v0', 'BabyAI-GoToRedBall-v0', 'BabyAI-GoToRedBallNoDists-v0', 'BabyAI-GoToObjS6-v0',
  'BabyAI-GoToLocalS8N7-v0', 'BabyAI-GoToObjMazeS7-v0', 'BabyAI-GoToImpUnlock-v0', 'BabyAI-GoToSeqS5R2-v0',
  'BabyAI-GoToRedBlueBall-v0', 'BabyAI-GoToDoor-v0', 'BabyAI-GoToObjDoor-v0', 'BabyAI-Open-v0',
  'BabyAI-OpenRedDoor-v0', 'BabyAI-OpenDoorLoc-v0', 'BabyAI-OpenRedBlueDoorsDebug-v0', 'BabyAI-OpenDoorsOrderN4Debug-v0',
  'BabyAI-Pickup-v0', 'BabyAI-UnblockPickup-v0', 'BabyAI-PickupLoc-v0', 'BabyAI-PickupDistDebug-v0',
  'BabyAI-PickupAbove-v0', 'BabyAI-PutNextLocalS6N4-v0', 'BabyAI-PutNextS7N4Carrying-v0', 'BabyAI-Unlock-v0',
  'BabyAI-UnlockLocalDist-v0', 'BabyAI-KeyInBox-v0', 'BabyAI-UnlockPickupDist-v0', 'BabyAI-BlockedUnlockPickup-v0',
  'BabyAI-UnlockToUnlock-v0', 'BabyAI-ActionObjDoor-v0', 'BabyAI-FindObjS7-v0', 'BabyAI-KeyCorridorS6R3-v0',
  'BabyAI-OneRoomS20-v0', 'BabyAI-MoveTwoAcrossS8N9-v0', 'BabyAI-SynthS5R2-v0', 'BabyAI-SynthLoc-v0',
  'BabyAI-SynthSeq-v0', 'BabyAI-MiniBossLevel-v0', 'BabyAI-BossLevel-v0', 'BabyAI-BossLevelNoUnlock-v0',
];
const short = (py: string) => py.slice('BabyAI-'.length, -'-v0'.length);

let server: AgentGymHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Reply = { observation: string; reward: number; score: number; done: boolean; error?: string };

async function client(agentgymCompat?: boolean) {
  server = await startAgentGymHttpServer({ port: 0, definition: babyaiDefinition, ...(agentgymCompat === undefined ? {} : { agentgymCompat }) });
  const url = server.url;
  const { id } = (await request(`${url}/create`, { body: {} })).json as { id: number };
  return {
    reset: async (dataIdx: number) => (await request(`${url}/reset`, { body: { id, data_idx: dataIdx } })).json as Reply,
    step: async (action: string) => (await request(`${url}/step`, { body: { id, action } })).json as Reply,
  };
}

/**
 * GoToRedBallNoDists/0/minigrid (data_idx 2, the original's grid): 40 turns, then the oracle's actions to the ball, so the
 * success comes after ≥ 41 of the 64 primitive steps and pays ≤ 1 - 0.9 · 41/64 ≈ 0.42.
 */
async function lateSuccessActions(): Promise<{ actions: string[]; reward: number }> {
  const env = babyaiDefinition.make() as BabyAIEnv;
  await env.reset({ taskId: 'GoToRedBallNoDists/0/minigrid' });
  const actions: string[] = Array.from({ length: 40 }, () => 'turn left');
  for (const a of actions) expect((await env.step(a)).terminated).toBe(false);
  const oracle = babyaiDefinition.oracle?.(env) as { next(): Promise<string> };
  for (let t = 0; t < 20; t++) {
    const action = await oracle.next();
    actions.push(action);
    const r = await env.step(action);
    if (r.terminated) {
      // Our own rule (the WS and training default): any success ends the episode.
      expect(r.info.success).toBe(true);
      await expect(env.step('turn left')).rejects.toMatchObject({ code: 'ENV_NOT_RESET' });
      return { actions, reward: r.reward };
    }
  }
  throw new Error('the oracle did not reach the ball');
}

describe('BabyAI over AgentGym HTTP: data_idx as agentenv-babyai maps it (issue 28)', () => {
  it('data_idx 0…39 are the 40 levels of all_levels in order with seed 0; 40 + k is level k + 1 with seed 1', async () => {
    const c = await client();
    for (let i = 0; i < 40; i++) {
      const name = short(ALL_LEVELS_PY[i] as string);
      const reply = await c.reset(i);
      // Every level of all_levels is implemented (issue 28).
      expect(LEVEL_BY_NAME.has(name), name).toBe(true);
      expect(babyaiDefinition.agentgymIndex?.dataIdxOf(`${name}/0`), name).toBe(i);
      expect(babyaiDefinition.agentgymIndex?.dataIdxOf(`${name}/7`), name).toBe(7 * 40 + i);
      expect(babyaiDefinition.agentgymIndex?.taskIdAt(i)).toBe(`${name}/0/minigrid`);
      expect(babyaiDefinition.agentgymIndex?.dataIdxOf(`${name}/7/minigrid`), name).toBe(7 * 40 + i);
      expect(reply.observation, name).toMatch(/^Your goal: /);
      expect(reply).toMatchObject({ reward: 0, score: 0, done: false });
    }
    expect(babyaiDefinition.agentgymIndex?.taskIdAt(40 * 5 + 38)).toBe('BossLevel/5/minigrid');
    expect(babyaiDefinition.agentgymIndex?.taskIdAt(41)).toBe('GoToRedBall/1/minigrid');
    expect(babyaiDefinition.agentgymIndex?.taskIdAt(40 * 123 + 30)).toBe('FindObjS7/123/minigrid');
    expect((await c.reset(2)).observation).toBe((await babyaiDefinition.make().reset({ taskId: 'GoToRedBallNoDists/0/minigrid' })).observation);
  }, 60_000);
});

describe('BabyAI over AgentGym HTTP: compat mode (issue 28)', () => {
  it('a success paying ≤ 0.5 does not end the episode; reward is sticky and score its running sum', async () => {
    const { actions, reward } = await lateSuccessActions();
    expect(reward).toBeLessThanOrEqual(0.5);
    const c = await client();
    await c.reset(2);
    let last: Reply | undefined;
    for (const a of actions) last = await c.step(a);
    // BabyAI.update appends the completion line whenever minigrid says done, then clears done.
    expect(last?.observation).toContain('\n The task is completed.\nAvailable actions: [');
    expect(last).toMatchObject({ done: false });
    expect(last?.reward).toBeCloseTo(reward, 12);
    expect(last?.score).toBeCloseTo(reward, 12);
    // A `check` leaves env.reward as it was, and BabyAIEnv.step adds it to the score again.
    const check = await c.step('check available actions');
    expect(check.reward).toBeCloseTo(reward, 12);
    expect(check.score).toBeCloseTo(2 * reward, 12);
    const away = await c.step('turn left');
    expect(away).toMatchObject({ reward: 0, done: false });
    expect(away.score).toBeCloseTo(2 * reward, 12);
    // Facing the ball again is another (later, smaller) success, and still not the end.
    const again = await c.step('turn right');
    expect(again.done).toBe(false);
    expect(again.reward).toBeGreaterThan(0);
    expect(again.reward).toBeLessThan(reward);
    expect(again.score).toBeCloseTo(2 * reward + again.reward, 12);
  }, 60_000);

  it('an early success ends it as in the original, and --no-agentgym-compat ends a late one too', async () => {
    const early = await client();
    await early.reset(2);
    const env = babyaiDefinition.make();
    await env.reset({ taskId: 'GoToRedBallNoDists/0/minigrid' });
    const oracle = babyaiDefinition.oracle?.(env) as { next(): Promise<string> };
    let reply: Reply | undefined;
    for (let t = 0; t < 20 && !reply?.done; t++) {
      const action = await oracle.next();
      await env.step(action);
      reply = await early.step(action);
    }
    expect(reply?.done).toBe(true);
    expect(reply?.reward).toBeGreaterThan(0.5);
    expect(reply?.score).toBeCloseTo(reply?.reward as number, 12);
    expect((await early.step('turn left')).error).toMatch(/has finished/);
    await server?.close();

    const { actions, reward } = await lateSuccessActions();
    const ours = await client(false);
    await ours.reset(2);
    let last: Reply | undefined;
    for (const a of actions) last = await ours.step(a);
    expect(last?.done).toBe(true);
    expect(last?.reward).toBeCloseTo(reward, 12);
  }, 60_000);
});
