import { Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startDashboard, type Dashboard } from '../../dashboard/index.ts';

/** A page's view of `/live`: every frame it got, parsed; `next(op)` is the first one of `op` not yet taken. */
async function openPage(url: string): Promise<{ ws: WebSocket; frames: any[]; next: (op: string) => Promise<any> }> {
  const ws = new WebSocket(url.replace('http', 'ws') + 'live');
  const frames: any[] = [];
  const unread: any[] = [];
  const waiters: { op: string; resolve: (frame: any) => void }[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    frames.push(frame);
    const i = waiters.findIndex((w) => w.op === frame.op);
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(frame);
    else unread.push(frame);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const next = (op: string) =>
    new Promise<any>((resolve) => {
      const i = unread.findIndex((frame) => frame.op === op);
      if (i >= 0) resolve(unread.splice(i, 1)[0]);
      else waiters.push({ op, resolve });
    });
  return { ws, frames, next };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('dashboard server (issue 6)', () => {
  let dashboard: Dashboard;
  beforeAll(async () => {
    dashboard = await startDashboard({ port: 0, tickMs: 100, alarmMs: 5_000 });
  });
  afterAll(() => dashboard.close());

  it('serves the page, its modules and uPlot itself, with a same-origin-only CSP', async () => {
    const page = await fetch(dashboard.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await page.text();
    expect(html).toContain('/vendor/uplot.min.css');
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['/app/main.js', '/app/charts.js', '/app/style.css', '/vendor/uplot.esm.js', '/vendor/uplot.min.css']) {
      const response = await fetch(new URL(asset, dashboard.url));
      expect(response.status, asset).toBe(200);
    }
    expect((await fetch(new URL('/app/../server/wire.ts', dashboard.url))).status).toBe(404);
    expect((await fetch(new URL('/package.json', dashboard.url))).status).toBe(404);
    expect((await fetch(dashboard.url, { method: 'POST' })).status).toBe(405);
  });

  it('answers API mistakes with a code and a status', async () => {
    const get = async (p: string) => {
      const response = await fetch(new URL(p, dashboard.url));
      return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
    };
    expect(await get('/api/runs')).toEqual({ status: 200, body: [] });
    expect(await get('/api/runs/r99/metrics')).toMatchObject({ status: 404, body: { error: { code: 'RUN_UNKNOWN' } } });
    expect(await get('/api/nothing')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await get('/api/runs/%E0%A4%A')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    const live = dashboard.addLive(new Subject(), { label: 'no dir' });
    expect(await get(`/api/runs/${live.id}/steps`)).toMatchObject({ status: 404, body: { error: { code: 'NO_TRAJECTORIES' } } });
    await expect(dashboard.addRunDir('/nonexistent/run')).rejects.toMatchObject({ code: 'RUN_DIR_MISSING' });
  });

  it('pushes a live run as throttled diffs (≤ 1 board frame per tick), whatever the event rate', async () => {
    const events = new Subject<{ type: string; [key: string]: unknown }>();
    const run = dashboard.addLive(events, { label: 'flood' });
    const page = await openPage(dashboard.url);
    const hello = await page.next('hello');
    expect(hello.runs.map((r: { label: string }) => r.label)).toContain('flood');
    expect(hello.alarmMs).toBe(5_000);

    // 64 concurrent episodes at full speed: 40 000 events in ~1 s.
    const started = Date.now();
    events.next({ type: 'run.started', t: 0, runId: 'flood-1', episodes: 64, concurrency: 64, horizon: 20 });
    for (let e = 0; e < 64; e++) events.next({ type: 'episode.started', t: 0, episodeId: `e${e}`, taskId: 't', slot: e, attempt: 0, maxTurns: 20, policyVersion: 0 });
    for (let burst = 0; burst < 20; burst++) {
      for (let i = 0; i < 1_000; i++) {
        const e = `e${i % 64}`;
        events.next({ type: 'agent.acted', t: 0, episodeId: e, turn: burst, action: 'go' });
        events.next({ type: 'env.stepped', t: 0, episodeId: e, turn: burst, reward: 0, terminated: false, truncated: false });
      }
      await sleep(50);
    }
    for (let e = 0; e < 64; e++) events.next({ type: 'episode.finished', t: 0, episodeId: `e${e}`, taskId: 't', slot: e, attempt: 0, outcome: e % 4 === 0 ? 'aborted' : 'success', reward: 1, turns: 20, maxTurns: 20, policyVersion: 0 });
    await sleep(250);
    const elapsed = Date.now() - started;
    const boards = page.frames.filter((f) => f.op === 'board' && f.run === run.id);
    expect(boards.length).toBeGreaterThan(3);
    expect(boards.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
    const last = boards.at(-1).board;
    expect(last.outcomes).toEqual({ success: 48, failure: 0, truncated: 0, aborted: 16 });
    // The page's copy of the board ends empty: every row it was sent was removed again.
    const rows = new Set<string>();
    for (const { board } of boards) {
      for (const row of board.upsert) rows.add(row.id);
      for (const id of board.remove) rows.delete(id);
    }
    expect(rows.size).toBe(0);
    // Rollout-only runs chart windows of episodes.
    const metrics = page.frames.filter((f) => f.op === 'metrics' && f.run === run.id).flatMap((f) => f.rows);
    expect(metrics).toMatchObject([{ step: 1, episodes: 64, successRate: 1, aborted: 16 }]);

    // A page that connects now gets the whole state in its hello.
    const late = await openPage(dashboard.url);
    const lateHello = await late.next('hello');
    expect(lateHello.boards[run.id].outcomes.aborted).toBe(16);
    expect(lateHello.metrics[run.id]).toHaveLength(1);
    events.complete();
    page.ws.close();
    late.ws.close();
  });

  it('answers bad frames from a page with an error frame and keeps the connection', async () => {
    const page = await openPage(dashboard.url);
    await page.next('hello');
    const reply = (data: string | Buffer) => {
      const next = page.next('error');
      page.ws.send(data);
      return next;
    };
    expect((await reply('not json')).error.code).toBe('BAD_JSON');
    expect((await reply('{"op":"shutdown"}')).error.code).toBe('UNKNOWN_OP');
    expect((await reply('{"nop":1}')).error.code).toBe('BAD_FRAME');
    expect((await reply(Buffer.from([1, 2, 3]))).error.code).toBe('BAD_FRAME');
    await sleep(1_000);
    const hello = page.next('hello');
    page.ws.send('{"op":"resync"}');
    expect((await hello).op).toBe('hello');
    // Over maxPayload (4 KiB): ws closes with 1009.
    const closed = new Promise<number>((resolve) => page.ws.once('close', resolve));
    page.ws.send('x'.repeat(10_000));
    expect(await closed).toBe(1009);
  });

  it('refuses WebSocket upgrades anywhere but /live', async () => {
    const ws = new WebSocket(dashboard.url.replace('http', 'ws') + 'elsewhere');
    const error = await new Promise<Error>((resolve) => ws.once('error', resolve));
    expect(error.message).toMatch(/404/);
  });
});
