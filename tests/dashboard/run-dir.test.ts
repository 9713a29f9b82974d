import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getEnv } from '../../envs/index.ts';
import { replayEpisode } from '../../dashboard/server/replay.ts';
import { parseRunArg } from '../../dashboard/server/run-arg.ts';
import { RunDirReader, type LoggedEpisode } from '../../dashboard/server/run-dir.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-rundir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real BabyAI episode, played with fixed actions, logged the way RunDir writes it. */
async function playedEpisode(taskId: string, actions: readonly string[]): Promise<LoggedEpisode> {
  const env = getEnv('babyai').make();
  const reset = await env.reset({ taskId });
  const steps = [];
  for (const action of actions) {
    const result = await env.step(action);
    steps.push({ action, observation: result.observation, reward: result.reward, invalidAction: result.info.invalidAction === true });
    if (result.terminated || result.truncated) break;
  }
  return { episodeId: 'step-1-e0', taskId, outcome: 'truncated', reward: 0, turns: steps.length, maxTurns: actions.length, firstObservation: reset.observation, steps };
}

describe('run directories and replay (issue 6: dashboard --run, trajectory viewer)', () => {
  it('refuses a missing directory and a directory that is not a run, with codes', async () => {
    await expect(RunDirReader.open(path.join(dir, 'nowhere'))).rejects.toMatchObject({ code: 'RUN_DIR_MISSING' });
    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    await expect(RunDirReader.open(empty)).rejects.toMatchObject({ code: 'RUN_DIR_INVALID', message: expect.stringMatching(/not a run directory/) });
    const file = path.join(dir, 'file.txt');
    writeFileSync(file, 'x');
    await expect(RunDirReader.open(file)).rejects.toMatchObject({ code: 'RUN_DIR_MISSING' });
  });

  it('reads --run as DIR or LABEL=DIR (an existing path wins)', () => {
    expect(parseRunArg('runs/a')).toEqual({ dir: 'runs/a' });
    expect(parseRunArg('fixed 20=runs/a')).toEqual({ label: 'fixed 20', dir: 'runs/a' });
    const odd = path.join(dir, 'a=b');
    mkdirSync(odd);
    expect(parseRunArg(odd)).toEqual({ dir: odd });
    expect(parseRunArg('=runs/a')).toEqual({ dir: '=runs/a' });
  });

  it('follows metrics.jsonl: skips bad lines, waits for a line to be complete, re-reads a file cut back by a resume', async () => {
    const run = path.join(dir, 'run');
    mkdirSync(run);
    const metrics = path.join(run, 'metrics.jsonl');
    writeFileSync(metrics, '{"step":1,"successRate":0.5}\nnot json\n[1,2]\n{"step":2,"succ');
    const reader = await RunDirReader.open(run);
    expect(await reader.newMetrics()).toEqual({ rows: [{ step: 1, successRate: 0.5 }], restarted: false });
    expect(reader.badMetricLines).toBe(2);
    appendFileSync(metrics, 'essRate":1}\n');
    expect(await reader.newMetrics()).toEqual({ rows: [{ step: 2, successRate: 1 }], restarted: false });
    expect(await reader.newMetrics()).toEqual({ rows: [], restarted: false });
    writeFileSync(metrics, '{"step":1}\n');
    expect(await reader.newMetrics()).toEqual({ rows: [{ step: 1 }], restarted: true });
    expect(await reader.config()).toBeUndefined();
  });

  it('lists steps and episodes; an unreadable line is listed with its error and refused when opened', async () => {
    const run = path.join(dir, 'traj');
    mkdirSync(path.join(run, 'trajectories'), { recursive: true });
    const good = await playedEpisode('GoToRedBallGrey/0', ['turn left', 'move forward']);
    writeFileSync(path.join(run, 'trajectories', 'step-000003.jsonl'), `${JSON.stringify(good)}\n{"taskId":5}\n{oops\n`);
    writeFileSync(path.join(run, 'trajectories', 'notes.txt'), '');
    const reader = await RunDirReader.open(run);
    expect(await reader.steps()).toEqual([3]);
    const episodes = await reader.episodes(3);
    expect(episodes[0]).toMatchObject({ index: 0, taskId: 'GoToRedBallGrey/0', turns: good.steps.length });
    expect(episodes[1]?.error).toMatch(/not a trajectory: taskId/);
    expect(episodes[2]?.error).toMatch(/not JSON/);
    await expect(reader.episode(3, 1)).rejects.toMatchObject({ code: 'TRAJECTORY_INVALID' });
    await expect(reader.episode(3, 9)).rejects.toMatchObject({ code: 'EPISODE_UNKNOWN' });
    await expect(reader.episodes(4)).rejects.toMatchObject({ code: 'STEP_UNKNOWN' });
  });

  it('replays a BabyAI episode into one grid picture per turn, and stops the pictures where the log disagrees', async () => {
    const logged = await playedEpisode('GoToRedBallGrey/0', ['turn left', 'turn left', 'move forward']);
    const replayed = await replayEpisode('babyai', logged);
    expect(replayed.replay).toBe('ok');
    expect(replayed.frames.map((f) => f.action)).toEqual([undefined, ...logged.steps.map((s) => s.action)]);
    const pictures = replayed.frames.map((f) => f.picture as { rows: string[]; agent: { dir: number }; colors: unknown[] });
    expect(pictures.every((p) => Array.isArray(p.rows) && Array.isArray(p.colors))).toBe(true);
    expect(pictures[1]?.agent.dir).toBe(((pictures[0]?.agent.dir ?? 0) + 3) % 4);

    const tampered = { ...logged, steps: logged.steps.map((s, i) => (i === 1 ? { ...s, observation: 'something else' } : s)) };
    const mismatch = await replayEpisode('babyai', tampered);
    expect(mismatch.replay).toBe('mismatch');
    expect(mismatch.replayNote).toMatch(/turn 2/);
    expect(mismatch.frames.map((f) => f.picture !== undefined)).toEqual([true, true, false, false]);

    const unknown = await replayEpisode('no-such-env', logged);
    expect(unknown).toMatchObject({ replay: 'unavailable', replayNote: expect.stringMatching(/unknown env "no-such-env"/) });
    expect(unknown.frames).toHaveLength(logged.steps.length + 1);
  });
});
