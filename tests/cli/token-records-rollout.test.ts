/**
 * Issue 38: `rollout --agent openai:MODEL --tokenizer hf:DIR --format tokens --out FILE` through
 * the real entry point against the scripted server: every line validates against the schema, the
 * ids are exactly what was sent and sampled, the masks are right, and the drift check fires on a
 * server that spells its replies with other ids.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseTokenRecords } from '../../demos/token-record.ts';
import { getEnv } from '../../envs/index.ts';
import { pickTasks } from '../../envs/pick-tasks.ts';
import { loadHfTokenizer } from '../../policy/hf/tokenizer/index.ts';
import { scriptedLogProb, startScriptedServer, type ScriptedServer } from '../policy/llm/scripted-completions-server.ts';
import { runCli } from './run-cli.ts';

const DIR = 'tests/fixtures/hf/serve-tiny';
const tokenizer = loadHfTokenizer(DIR);
const REPLY = 'Thought: go\nAction: turn left';
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-token-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedServer[] = [];
afterEach(async () => Promise.all(servers.splice(0).map((s) => s.close())));

async function rollout(name: string, retokenize?: 'chars', extra: string[] = []) {
  const server = await startScriptedServer({ tokenizer, reply: () => REPLY, ...(retokenize ? { retokenize } : {}) });
  servers.push(server);
  const out = path.join(dir, `${name}.jsonl`);
  const result = await runCli(['rollout', '--env', 'babyai', '--agent', 'openai:tiny', '--tokenizer', `hf:${DIR}`, '--base-url', server.baseURL,
    '--episodes', '3', '--horizon', '2', '--format', 'tokens', '--out', out, '--json', ...extra]);
  return { result, server, out };
}

describe('rollout --format tokens (issue 38)', () => {
  it('writes one valid record per episode: ids exactly as sent and sampled, mask 1 on the replies, rewards per turn', async () => {
    const { result, server, out } = await rollout('exact');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).tokenRecords).toEqual({ out, written: 3, driftTurns: 0 });
    expect(result.stderr).not.toContain('drift');
    const records = parseTokenRecords(readFileSync(out, 'utf8'));
    expect(records).toHaveLength(3);
    const reply = [...tokenizer.encode(REPLY, { addSpecialTokens: false }), tokenizer.tokenToId('<|im_end|>')!];
    for (const record of records) {
      expect(record).toMatchObject({ env: 'babyai', split: 'test', policy: { name: 'openai:tiny', version: 0 }, horizon: 2, drift: 0 });
      expect(record.group).toBe(getEnv('babyai').tasks('test').indexOf(record.taskId));
      expect(record.turns.length).toBe(record.outcome === 'truncated' ? 2 : record.turns.length);
      expect(record.turns.length).toBeGreaterThanOrEqual(1);
      // The last request of this episode is the record's ids up to its last reply.
      const last = record.turns[record.turns.length - 1]!;
      const prompt = record.tokens.slice(0, record.tokens.length - last.responseIds.length);
      expect(server.requests.some((r) => JSON.stringify(r.body.prompt) === JSON.stringify(prompt))).toBe(true);
      for (const turn of record.turns) {
        expect(turn.responseIds).toEqual(reply);
        expect(turn.logProbs).toEqual(reply.map((_, i) => scriptedLogProb(i)));
        expect(turn.drift).toBe(false);
        expect(turn.action).toBe('turn left');
      }
      expect(record.tokens).toEqual(record.turns.flatMap((t) => [...t.promptIds, ...t.responseIds]));
      expect(record.mask).toEqual(record.turns.flatMap((t) => [...t.promptIds.map(() => 0), ...t.responseIds.map(() => 1)]));
      expect(record.reward).toBeCloseTo(record.turns.reduce((sum, t) => sum + t.reward, 0));
    }
    // Three tasks taken round-robin over the level families (issue 39): their groups are their split indices.
    const test = getEnv('babyai').tasks('test');
    expect(new Set(records.map((r) => r.group))).toEqual(new Set(pickTasks(getEnv('babyai'), 'test', { count: 3 }).map((id) => test.indexOf(id))));
  });

  it('counts drift on a server that re-tokenizes differently', async () => {
    const { result, out } = await rollout('drift', 'chars');
    expect(result.code, result.stderr).toBe(0);
    const records = parseTokenRecords(readFileSync(out, 'utf8'));
    expect(records.map((r) => r.drift)).toEqual(records.map((r) => r.turns.length));
    expect(records.every((r) => r.turns.every((t) => t.drift === true))).toBe(true);
    const driftTurns = records.reduce((n, r) => n + r.turns.length, 0);
    expect(JSON.parse(result.stdout).tokenRecords.driftTurns).toBe(driftTurns);
    expect(result.stderr).toContain(`warning: ${driftTurns} turn(s) drift`);
  });

  it('refuses --format tokens for an agent that keeps no ids, and --out without --format', async () => {
    const noTokenizer = await runCli(['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '1', '--format', 'tokens', '--out', path.join(dir, 'x.jsonl')]);
    expect(noTokenizer.code).toBe(1);
    expect(noTokenizer.stderr).toContain('--format tokens needs an agent that keeps its token ids');
    const noFormat = await runCli(['rollout', '--env', 'babyai', '--episodes', '1', '--out', path.join(dir, 'y.jsonl')]);
    expect(noFormat.code).toBe(1);
    expect(noFormat.stderr).toContain('--format tokens and --out FILE go together');
  });

  it('sends --top-p as top_p on every call, and refuses it for an openai: agent without --tokenizer', async () => {
    const { result, server } = await rollout('top-p', undefined, ['--top-p', '0.6']);
    expect(result.code).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(new Set(server.requests.map((r) => r.body.top_p))).toEqual(new Set([0.6]));
    const text = await runCli(['rollout', '--env', 'babyai', '--agent', 'openai:tiny', '--base-url', server.baseURL, '--episodes', '1', '--top-p', '0.6']);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('--top-p is sent by a token-exact openai:MODEL agent');
  });
});
