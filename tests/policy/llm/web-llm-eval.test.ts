/**
 * Issue 27: `actorgym eval --env web --agent openai:MODEL` end to end, against a scripted
 * OpenAI-compatible server that answers each turn by reading the page it was sent
 * (experiments/web-llm/scripted-web-player.ts). Three shop questions: one played right, one answered
 * wrong, one whose first reply has no action block (a format error: a turn spent, then solved).
 * The eval scores them 1, 0, 1; past pages are sent condensed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WEB_INTRO, WEB_NO_ACTION_MESSAGE } from '../../../envs/web/prompt.ts';
import { runCli } from '../../cli/run-cli.ts';
import { startFaultServer, type SeenRequest } from '../../../bench/chat-fault-server.ts';
import { lastUserTurn, scriptedWebReply, type WebPlayerFlaw } from '../../../experiments/web-llm/scripted-web-player.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-web-llm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The first three test tasks (`--pick first`; the default picks across categories): shop/info/price/197, /63 and /312.
const flaw = (objective: string): WebPlayerFlaw =>
  objective.includes('Oakmere Premium Kettle, Green') ? 'wrong-answer' : objective.includes('Bloomwise Premium Planter, Blue') ? 'no-block-first' : 'none';

interface EpisodeLine {
  readonly taskId: string;
  readonly outcome: string;
  readonly reward: number;
  readonly trajectory: readonly { readonly action: string; readonly invalidAction?: boolean; readonly usage?: { readonly formatError?: string } }[];
}

const messagesOf = (r: SeenRequest) => (r.body as { messages: { role: string; content: string }[] }).messages;

describe('eval --env web --agent openai:MODEL (issue 27)', () => {
  it('scores a scripted model that reads the pages: right, wrong, and right after a format error', async () => {
    const server = await startFaultServer({ content: (request) => { const { text, turn } = lastUserTurn(request); return scriptedWebReply(text, turn, flaw); } });
    try {
      const out = path.join(dir, 'eval');
      const result = await runCli(['eval', '--env', 'web', '--agent', 'openai:scripted', '--base-url', server.baseURL, '--split', 'test',
        '--tasks', '3', '--pick', 'first', '--samples', '1', '--horizon', '8', '--concurrency', '3', '--llm-retries', '0', '--out', out, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const results = JSON.parse(result.stdout);
      expect(results).toMatchObject({ env: 'web', agent: 'openai:scripted', tasks: 3, missing: 0, outcomes: { success: 2, failure: 1, truncated: 0, aborted: 0 } });
      expect(results.avgAtN).toBeCloseTo(2 / 3, 6);
      expect(results.tokens.calls).toBe(server.chatRequests);

      const episodes = readFileSync(path.join(out, 'episodes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as EpisodeLine);
      const byTask = new Map(episodes.map((e) => [e.taskId, e]));
      const right = byTask.get('shop/info/price/197')!;
      expect([right.outcome, right.reward]).toEqual(['success', 1]);
      expect(right.trajectory.at(-1)!.action).toBe('stop [$75.99]');
      const wrong = byTask.get('shop/info/price/63')!;
      expect([wrong.outcome, wrong.reward]).toEqual(['failure', 0]);
      expect(wrong.trajectory.at(-1)!.action).toMatch(/^stop \[\$[\d.]+9\]$/);
      const recovered = byTask.get('shop/info/price/312')!;
      expect([recovered.outcome, recovered.reward]).toEqual(['success', 1]);
      expect(recovered.trajectory[0]).toMatchObject({ action: '', invalidAction: true, usage: { formatError: 'no_action' } });
      expect(recovered.trajectory.slice(1).every((t) => t.usage?.formatError === undefined)).toBe(true);

      const posts = server.requests.filter((r) => r.method === 'POST');
      // The model was told about its format error before the page that followed it.
      expect(posts.some((r) => messagesOf(r).at(-1)!.content.startsWith(`${WEB_NO_ACTION_MESSAGE}\n\nOBSERVATION:\n`))).toBe(true);
      // Every request holds one page whole (the newest); the past is condensed.
      for (const r of posts) {
        const users = messagesOf(r).filter((m) => m.role === 'user').map((m) => m.content.replace(WEB_INTRO, ''));
        expect(users.filter((u) => u.includes('\nPREVIOUS ACTION: '))).toEqual([users.at(-1)]);
        expect(users.slice(0, -1).every((u) => u.includes('OBSERVATION (page omitted):\n'))).toBe(true);
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});
