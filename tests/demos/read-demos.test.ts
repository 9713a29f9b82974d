import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDemos } from '../../actors/collect-demos.ts';
import type { Demo } from '../../demos/demo.ts';
import { readDemos } from '../../demos/read-demos.ts';
import { writeDemos } from '../../demos/write-demos.ts';
import { getEnv } from '../../envs/index.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-read-demos-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

let demos: readonly Demo[] = [];
let lines: string[] = [];
beforeAll(async () => {
  ({ demos } = await collectDemos({ env: getEnv('babyai'), agent: 'oracle', agentName: 'oracle', split: 'train', episodes: 3, seed: 1 }));
  lines = demos.map((d) => JSON.stringify(d));
});

describe('readDemos: our JSON lines', () => {
  it('reads back what writeDemos wrote, skipping blank lines', async () => {
    const p = path.join(dir, 'ours.jsonl');
    writeDemos(p, demos);
    expect(readFileSync(p, 'utf8').split('\n')).toHaveLength(4);
    expect(await readDemos(p)).toEqual(demos);
    expect(await readDemos(file('blank.jsonl', `${lines[0]}\n\n${lines[1]}\n`))).toEqual(demos.slice(0, 2));
    expect(await readDemos(file('empty.jsonl', ''))).toEqual([]);
  });

  it('names the line that is not JSON', async () => {
    const p = file('broken.jsonl', `${lines[0]}\n${lines[1]}\n{"format": "actorgym-demo", \n`);
    await expect(readDemos(p)).rejects.toThrow(/broken\.jsonl:3: not JSON/);
  });

  it('names the line and field of a record that is not a demo', async () => {
    const bad = { ...demos[1], outcome: 'aborted' };
    await expect(readDemos(file('field.jsonl', `${lines[0]}\n${JSON.stringify(bad)}\n`))).rejects.toThrow(/field\.jsonl:2: not a demo: outcome: /);
    const noTurns = { ...demos[0], turns: [{ observation: 'x', reward: 0 }] };
    await expect(readDemos(file('turn.jsonl', `\n\n${JSON.stringify(noTurns)}\n`))).rejects.toThrow(/turn\.jsonl:3: not a demo: turns\.0\.action: /);
  });

  it('refuses a file that mixes the two formats, naming the line', async () => {
    const item = JSON.stringify({ item_id: 'babyai_3', conversations: [] });
    await expect(readDemos(file('mixed.jsonl', `${lines[0]}\n${item}\n`))).rejects.toThrow(
      /mixed\.jsonl:2: an AgentTraj item, but line 1 began a file of actorgym demos \(one format per file\)/,
    );
  });

  it('names a file it cannot read', async () => {
    await expect(readDemos(path.join(dir, 'missing.jsonl'))).rejects.toThrow(/cannot read demos file .*missing\.jsonl: ENOENT/);
  });
});

describe('readDemos: AgentTraj', () => {
  it('names the line of a malformed item in a JSON list, and where a list is not valid JSON', async () => {
    const p = path.join(dir, 'items.json');
    writeDemos(p, demos, 'agenttraj');
    const [open, first, second, ...rest] = readFileSync(p, 'utf8').split('\n');
    const broken = second!.replace('"from":"gpt"', '"from":"assistant"');
    await expect(readDemos(file('item.json', [open, first, broken, ...rest].join('\n')))).rejects.toThrow(
      /item\.json:3: not an AgentTraj item: conversations\.1\.from: /,
    );
    await expect(readDemos(file('syntax.json', [open, first, second!.replace('"conversations":', '"conversations" '), ...rest].join('\n')))).rejects.toThrow(/syntax\.json:3: not a JSON list/);
    const notItem = [open, first!, '{"taskId": "x"},', ...rest].join('\n');
    await expect(readDemos(file('other.json', notItem))).rejects.toThrow(/other\.json:3: not an AgentTraj item, but line 2 began a file of AgentTraj items/);
  });

  it('names the line of an AgentTraj JSON line whose conversation is out of order', async () => {
    const item = { item_id: 'babyai_90', conversations: [{ from: 'human', loss: null, value: 'hi' }, { from: 'human', loss: null, value: 'again' }] };
    await expect(readDemos(file('order.jsonl', `\n${JSON.stringify(item)}\n`))).rejects.toThrow(
      /order\.jsonl:2: item babyai_90: conversations\[1\] is a human turn where a reply \(gpt\) was expected/,
    );
  });

  it('names an item whose env is unknown', async () => {
    const item = { item_id: 'webshop_6', conversations: [] };
    await expect(readDemos(file('webshop.json', JSON.stringify([item])))).rejects.toThrow(/webshop\.json:1: item webshop_6: unknown env "webshop"/);
  });
});
