import type { AddressInfo } from 'node:net';
import { Subject, type Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startEventServer } from '../../servers/event-server/event-server.ts';
import { startDashboard, type Dashboard, type DashboardRun } from '../../dashboard/index.ts';
import type { RunEvent } from '../../streams/events.ts';

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const status = (run: DashboardRun) => run.info().status;

describe('dashboard --connect: a run on an event server (issue 6)', () => {
  let dashboard: Dashboard;
  const warnings: string[] = [];
  beforeAll(async () => {
    dashboard = await startDashboard({ port: 0, warn: (message) => warnings.push(message) });
  });
  afterAll(() => dashboard.close());

  it('follows a training run served by startEventServer, learner steps included, until its end', async () => {
    const events = new Subject<{ type: string; t: number; [key: string]: unknown }>();
    const server = await startEventServer({ port: 0, events: events as unknown as Observable<RunEvent> });
    try {
      const run = dashboard.connect(server.url);
      await until(() => status(run).startsWith('connected'), 'connected');
      events.next({ type: 'training.started', t: 1, env: 'babyai', algo: 'grpo', backend: 'wasm', fromStep: 0, targetSteps: 2, out: '', parameters: 1, vocabSize: 1 });
      events.next({ type: 'run.started', t: 1, runId: 'step-1', env: 'babyai', split: 'train', episodes: 2, concurrency: 2, seed: 0, horizon: 3 });
      events.next({ type: 'episode.started', t: 2, episodeId: 'step-1-e0', taskId: 'GoTo/1', slot: 0, attempt: 0, maxTurns: 3, policyVersion: 0 });
      events.next({ type: 'agent.acted', t: 3, episodeId: 'step-1-e0', turn: 0, action: 'turn left' });
      await until(() => run.board.snapshot().upsert[0]?.state === 'stepping', 'the episode on the board');
      events.next({ type: 'episode.finished', t: 4, episodeId: 'step-1-e0', taskId: 'GoTo/1', slot: 0, attempt: 0, outcome: 'aborted', reward: 0, turns: 0, maxTurns: 3, policyVersion: 0, abortReason: 'env_lost' });
      events.next({ type: 'learner.stepped', t: 5, step: 1, policyVersion: 1, metrics: { step: 1, successRate: 0.25, loss: 0.5 } });
      await until(() => run.series.all().length === 1, 'a chart row');
      expect(run.series.all()[0]).toEqual({ step: 1, successRate: 0.25, loss: 0.5 });
      expect(run.board.snapshot().outcomes.aborted).toBe(1);
      expect(run.info()).toMatchObject({ kind: 'remote', env: 'babyai', live: true, hasTrajectories: false, status: 'step 1/2 · horizon 3' });
      events.complete();
      await until(() => !run.info().live, 'the end');
      expect(status(run)).toBe('the run ended');
    } finally {
      await server.close();
    }
  });

  it('skips invalid frames (reporting each kind once) and keeps the valid events', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (ws) => {
      ws.once('message', () => {
        ws.send('{"op":"subscribed"}');
        ws.send('this is not json');
        ws.send('{"op":"event","event":{"type":"episode.started","t":1}}');
        ws.send('{"op":"teleport"}');
        ws.send('{"op":"event","event":{"type":"episode.state","t":1,"episodeId":"nobody","state":"acting"}}');
        ws.send(JSON.stringify({ op: 'event', event: { type: 'episode.started', t: 2, episodeId: 'e1', taskId: 'GoTo/1', slot: 0, attempt: 0, maxTurns: 5, policyVersion: 0 } }));
        ws.send('{"op":"end"}');
      });
    });
    await new Promise((resolve) => wss.once('listening', resolve));
    try {
      const run = dashboard.connect(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
      await until(() => status(run) === 'the run ended', 'the end');
      expect(run.board.snapshot().upsert.map((row) => row.id)).toEqual(['e1']);
      expect(warnings.filter((w) => w.includes('skipped an invalid frame'))).toHaveLength(3);
      expect(warnings.join('\n')).toMatch(/frame is not JSON[\s\S]*invalid episode.started event: episodeId[\s\S]*unknown op "teleport"/);
    } finally {
      wss.close();
    }
  });

  it('says why it cannot connect: a bad URL at once, a refused token and an unreachable server on the run', async () => {
    expect(() => dashboard.connect('http://127.0.0.1:1')).toThrow(expect.objectContaining({ code: 'BAD_URL' }));
    expect(() => dashboard.connect('not a url')).toThrow(expect.objectContaining({ code: 'BAD_URL' }));
    const secured = await startEventServer({ port: 0, events: new Subject<RunEvent>(), token: 's3cret' });
    try {
      const refused = dashboard.connect(secured.url);
      await until(() => status(refused).startsWith('error:'), 'the refusal');
      expect(status(refused)).toMatch(/refused the token \(HTTP 401\)/);
      expect(refused.info().live).toBe(false);
      const allowed = dashboard.connect(secured.url, { token: 's3cret' });
      await until(() => status(allowed).startsWith('connected'), 'connected with the token');
    } finally {
      await secured.close();
    }
    const gone = dashboard.connect('ws://127.0.0.1:9', { reconnectMs: 100 });
    await until(() => status(gone).startsWith('disconnected'), 'the failure');
    expect(status(gone)).toMatch(/ECONNREFUSED|closed with code/);
    expect(gone.info().live).toBe(true);
  });
});
