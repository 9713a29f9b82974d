import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentTrajItem } from '../../demos/agenttraj-item.ts';
import { collectDemos } from '../../actors/collect-demos.ts';
import type { Demo } from '../../demos/demo.ts';
import { readDemos } from '../../demos/read-demos.ts';
import { AGENTTRAJ_ACKNOWLEDGEMENT } from '../../demos/to-agenttraj.ts';
import { writeDemos } from '../../demos/write-demos.ts';
import type { EnvDefinition } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';
import { agentGymTaskOrder } from '../../transport/remote/agentgym-http-env.ts';
import { NO_ACTION_MESSAGE } from '../../envs/prompt/parse-reply.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-agenttraj-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const collect = async (env: string, agent: 'oracle' | 'random', options: { episodes: number; samples?: number; horizon?: number; split?: 'train' | 'test' }) =>
  (await collectDemos({ env: getEnv(env), agent, agentName: agent, split: options.split ?? 'train', seed: 5, ...options })).demos;

const items = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as AgentTrajItem[];

describe('AgentTraj write → read (issue 25, item 2)', () => {
  it('round-trips babyai demos of the oracle and of the random agent exactly, as a JSON list and as JSON lines', async () => {
    const demos = [...(await collect('babyai', 'oracle', { episodes: 3, samples: 2 })), ...(await collect('babyai', 'random', { episodes: 4, horizon: 5 }))];
    expect(new Set(demos.map((d) => d.outcome)).size).toBeGreaterThan(1);
    for (const name of ['babyai.json', 'babyai.jsonl']) {
      const file = path.join(dir, name);
      writeDemos(file, demos, 'agenttraj');
      expect(await readDemos(file)).toEqual(demos);
    }
    expect(readFileSync(path.join(dir, 'babyai.json'), 'utf8').startsWith('[\n{"item_id":"babyai_')).toBe(true);
  });

  it('round-trips textcraft, whose seed shapes the episode, and the test split', async () => {
    const demos = [...(await collect('textcraft', 'oracle', { episodes: 3 })), ...(await collect('textcraft', 'random', { episodes: 2, horizon: 4, split: 'test' }))];
    const file = path.join(dir, 'textcraft.json');
    writeDemos(file, demos, 'agenttraj');
    const back = await readDemos(file, { env: getEnv('textcraft') });
    expect(back).toEqual(demos);
    expect(back.map((d) => d.split)).toEqual(['train', 'train', 'train', 'test', 'test']);
  });

  it("lays items out as AgentGym does: item_id = our AgentGym HTTP data_idx, instruction, acknowledgement, then observation/reply pairs", async () => {
    const [demo] = await collect('babyai', 'oracle', { episodes: 1 });
    const file = path.join(dir, 'layout.json');
    writeDemos(file, [demo as Demo], 'agenttraj');
    const [item] = items(file);
    const order = agentGymTaskOrder(getEnv('babyai'));
    expect(item?.item_id).toBe(`babyai_${order.dataIdxOf(demo!.taskId)}`);
    const conv = item!.conversations;
    expect(conv[0]).toMatchObject({ from: 'human', loss: null });
    expect(conv[0]?.value).toMatch(/grid world/);
    expect(conv[1]).toEqual({ from: 'gpt', loss: false, value: AGENTTRAJ_ACKNOWLEDGEMENT });
    expect(conv).toHaveLength(2 + 2 * demo!.turns.length);
    demo!.turns.forEach((turn, k) => {
      expect(conv[2 + 2 * k]).toEqual({ from: 'human', loss: null, value: turn.observation });
      expect(conv[3 + 2 * k]).toEqual({ from: 'gpt', loss: true, value: `Thought: \nAction: ${turn.action}` });
    });
    // Deep Search replies are tags, searchqa is AgentGym's name for it.
    const [search] = await collect('search', 'oracle', { episodes: 1 });
    writeDemos(file, [search as Demo], 'agenttraj');
    const [searchItem] = items(file);
    expect(searchItem?.item_id).toMatch(/^searchqa_\d+$/);
    expect(searchItem?.conversations[3]?.value).toMatch(/^<think>.*<\/think>\n<(search|answer)> .+ <\/\1>$/s);
    expect(await readDemos(file)).toEqual([search]);
  });

  it('writes a reply with no action (an LLM format error) with loss false, and the next turn with our policy note', async () => {
    const [demo] = await collect('babyai', 'oracle', { episodes: 1 });
    const env = getEnv('babyai').make();
    const reset = await env.reset({ taskId: demo!.taskId, seed: demo!.seed });
    const first = await env.step('');
    const action = first.info.availableActions![0]!;
    const second = await env.step(action);
    await env.close();
    const withError: Demo = {
      ...demo!, outcome: 'truncated', reward: first.reward + second.reward, finalObservation: second.observation,
      turns: [
        { observation: reset.observation, availableActions: [...reset.info.availableActions!], action: '', reward: first.reward },
        { observation: first.observation, availableActions: [...first.info.availableActions!], action, reward: second.reward },
      ],
    };
    const file = path.join(dir, 'format-error.json');
    writeDemos(file, [withError], 'agenttraj');
    const conv = items(file)[0]!.conversations;
    expect(conv[3]).toMatchObject({ from: 'gpt', loss: false });
    expect(conv[4]).toEqual({ from: 'human', loss: null, value: `${NO_ACTION_MESSAGE}\n\n${first.observation}` });
    expect(conv[5]).toMatchObject({ from: 'gpt', loss: true });
    expect(await readDemos(file)).toEqual([withError]);
  });

  it('reads items without our field (as AgentGym writes them): replayed without a seed, named by their place', async () => {
    // An AgentGym item: babyai_<data_idx> is the original's grid, our task <level>/<seed>/minigrid.
    const babyai = getEnv('babyai');
    const original: EnvDefinition = { ...babyai, tasks: (split) => (split === 'train' ? ['GoToRedBall/1/minigrid'] : babyai.tasks(split)) };
    const [demo] = (await collectDemos({ env: original, agent: 'oracle', agentName: 'oracle', split: 'train', seed: 5, episodes: 1 })).demos;
    expect(demo!.taskId).toBe('GoToRedBall/1/minigrid');
    const file = path.join(dir, 'foreign.json');
    writeDemos(file, [demo!, demo!], 'agenttraj');
    const foreign = items(file).map(({ actorgym: _, ...item }) => ({
      ...item,
      // AgentGym's own layout: its instruction, "Thought:\n…\n\nAction:\n…" replies, a last observation.
      conversations: [
        { from: 'human', loss: null, value: 'Some other instruction.' }, { from: 'gpt', loss: false, value: 'OK.' },
        ...demo!.turns.flatMap((t) => [{ from: 'human', loss: null, value: t.observation }, { from: 'gpt', loss: true, value: `Thought:\nI go on.\n\nAction:\n${t.action}` }]),
        { from: 'human', loss: null, value: demo!.finalObservation },
      ],
    }));
    writeFileSync(file, JSON.stringify(foreign, null, 2));
    const back = await readDemos(file);
    const itemId = foreign[0]!.item_id;
    expect(back).toEqual([0, 1].map((sample) => ({ ...demo, agent: 'agenttraj', seed: 0, sample, episodeId: `${itemId}#${sample}` })));
  });

  it('names the line and turn of an item whose replay diverges, or whose item_id names no task; skipBad leaves them out', async () => {
    const demos = await collect('babyai', 'oracle', { episodes: 3 });
    const file = path.join(dir, 'bad.jsonl');
    writeDemos(file, demos, 'agenttraj');
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AgentTrajItem);
    const tampered = structuredClone(lines[1]!);
    tampered.conversations[4]!.value = 'You see a purple dragon.';
    const unknown = { ...lines[2]!, item_id: 'babyai_99999999999' };
    writeFileSync(file, [lines[0], tampered, unknown].map((l) => JSON.stringify(l)).join('\n'));
    await expect(readDemos(file)).rejects.toThrow(/bad\.jsonl:2: item babyai_\d+: turn 1 diverges from the replay: the file shows "You see a purple dragon\." where replaying/);
    const skipped: string[] = [];
    const kept = await readDemos(file, { skipBad: true, onSkip: (m) => skipped.push(m) });
    expect(kept).toEqual([demos[0]]);
    expect(skipped).toHaveLength(2);
    expect(skipped[1]).toMatch(/bad\.jsonl:3: item babyai_99999999999: .*data_idx 99999999999 is out of range 0\.\.85899345919 for babyai/);
  });

  it('keeps our own task beside the item id where they differ, and refuses an item id that is not that task\'s', async () => {
    const [demo] = await collect('babyai', 'oracle', { episodes: 1 });
    const file = path.join(dir, 'own.json');
    writeDemos(file, [demo!], 'agenttraj');
    const [item] = items(file);
    // Our <level>/<seed> grids share a data_idx with the original's <level>/<seed>/minigrid.
    expect(item!.actorgym?.taskId).toBe(demo!.taskId);
    expect(await readDemos(file)).toEqual([demo]);
    const index = Number(/_(\d+)$/.exec(item!.item_id)![1]);
    writeFileSync(file, JSON.stringify([{ ...item, item_id: `babyai_${index + 1}` }]));
    await expect(readDemos(file)).rejects.toThrow(new RegExp(`item_id "babyai_${index + 1}" does not belong to our task "${demo!.taskId}"`));
  });

  it('refuses an item that goes on after the replayed episode ended, and an item of another env', async () => {
    const [demo] = await collect('babyai', 'oracle', { episodes: 1 });
    const file = path.join(dir, 'long.json');
    writeDemos(file, [{ ...demo!, turns: [...demo!.turns, { ...demo!.turns[0]!, observation: demo!.finalObservation }] }], 'agenttraj');
    await expect(readDemos(file)).rejects.toThrow(new RegExp(`long\\.json:2: item babyai_\\d+: reply ${demo!.turns.length} comes after the replayed episode ended \\(success`));
    writeDemos(file, [demo!], 'agenttraj');
    await expect(readDemos(file, { env: getEnv('textcraft') })).rejects.toThrow(/item_id "babyai_\d+" names env "babyai", not textcraft/);
  });

  it('refuses to write an action its reply would not read back', async () => {
    const [demo] = await collect('babyai', 'oracle', { episodes: 1 });
    const odd: Demo = { ...demo!, turns: [{ ...demo!.turns[0]!, action: 'go to red-ball 1' }] };
    const file = path.join(dir, 'odd.json');
    expect(() => writeDemos(file, [odd], 'agenttraj')).toThrow(/demo 0 \(babyai task .*\) cannot be written as AgentTraj: turn 0: action "go to red-ball 1" reads back from a babyai reply as "go to redball 1"/);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});
