import { describe, expect, it, vi } from 'vitest';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { checkEnv } from '../../envs/check-env.ts';
import { EnvError, type Env } from '../../envs/contract.ts';
import {
  allQuestions,
  BM25_PARAMS,
  corpus,
  CORRECT_MESSAGE,
  exactMatch,
  INCORRECT_MESSAGE,
  INVALID_MESSAGE,
  normalizeAnswer,
  questionOf,
  searchDefinition,
  SearchEnv,
  searchSpec,
  searchTasks,
  TEST_COUNTS,
} from '../../envs/search/index.ts';
import { getEnv } from '../../envs/index.ts';

const FALLBACK = ['<search> France </search>', '<answer> Paris </answer>', 'no tags here', '<answer> Lyon </answer>', '<search>capital of Kenya</search>'];

async function franceEnv(): Promise<Env> {
  const env = searchDefinition.make();
  await env.reset({ taskId: 'capital/FRA', seed: 1 });
  return env;
}

describe('search env: contract and registry', () => {
  it('passes checkEnv on test and train tasks', async () => {
    const tasks = [...searchTasks('test').slice(0, 3), ...searchTasks('train').slice(0, 3)];
    await expect(checkEnv(searchDefinition, { taskIds: tasks, fallbackActions: FALLBACK })).resolves.toBeUndefined();
  });

  it('is registered as "search" with the Deep Search horizon', () => {
    expect(getEnv('search')).toBe(searchDefinition);
    expect(searchSpec.defaultHorizon).toBe(10);
    expect(searchSpec.maxReward).toBe(1);
    expect(JSON.parse(JSON.stringify(searchSpec)).splits).toEqual({ train: searchTasks('train').length, test: 200 });
  });
});

describe("search env: AgentGym's SearchQA text", () => {
  it('resets to the SearchQA prompt with the question', async () => {
    const env = searchDefinition.make();
    const { observation, info } = await env.reset({ taskId: 'capital/FRA' });
    expect(observation.startsWith('You must reason inside <think>...</think> first. If you do not have enough knowledge, issue a <search>...</search> and then STOP.')).toBe(true);
    expect(observation).toContain('For example, <answer> Beijing </answer>. Follow this process every time.\n\n Question: What is the capital of France?');
    expect(observation.endsWith('Question: What is the capital of France?')).toBe(true);
    expect(info).toEqual({ hops: 1, kind: 'capital' });
  });

  it('answers a search with the top-3 passages in an <information> block', async () => {
    const env = await franceEnv();
    const r = await env.step('<think>I should look it up.</think>\n<search> France </search>');
    expect(r).toMatchObject({ reward: 0, terminated: false, truncated: false, info: { action: 'search', invalidAction: false, success: false } });
    expect(r.observation).toMatch(/^<information>Doc 1\(Title: "France"\) France \(official name: French Republic\) is a sovereign country in Western Europe/);
    expect(r.observation).toMatch(/\nDoc 2\(Title: "[^"]+"\) \S/);
    expect(r.observation).toMatch(/\nDoc 3\(Title: "[^"]+"\) [^\n]*<\/information>$/);
    expect(r.observation.match(/Doc \d\(Title: /g)).toHaveLength(3);
    expect(r.observation).toContain('Its capital is Paris.');
  });

  it('scores answers by exact match: wrong continues with the message, right ends with reward 1', async () => {
    const env = await franceEnv();
    const wrong = await env.step('<answer> Lyon </answer>');
    expect(wrong).toEqual({ observation: INCORRECT_MESSAGE, reward: 0, terminated: false, truncated: false, info: { action: 'answer', invalidAction: false, success: false } });
    expect(INCORRECT_MESSAGE).toBe('Sorry, your answer is incorrect. Please try again.');
    const right = await env.step('<think>the capital</think><answer>\n  The PARIS.\n</answer>');
    expect(right).toEqual({ observation: CORRECT_MESSAGE, reward: 1, terminated: true, truncated: false, info: { action: 'answer', invalidAction: false, success: true } });
    expect(CORRECT_MESSAGE).toBe('Congratulations! You have answered the question correctly.');
    await expect(env.step('<answer> Paris </answer>')).rejects.toMatchObject({ code: 'ENV_NOT_RESET' });
  });

  it('takes the first <search> or <answer> tag pair in the text', async () => {
    const env = await franceEnv();
    const search = await env.step('<search> France </search> then <answer> Paris </answer>');
    expect(search.info['action']).toBe('search');
    const answer = await env.step('<answer> Paris </answer> <search> France </search>');
    expect(answer).toMatchObject({ reward: 1, terminated: true });
  });

  it("gives AgentGym's invalid-action message to anything else", async () => {
    expect(INVALID_MESSAGE).toBe(
      'Your previous action is invalid. If you want to search, you should put the query between <search> and </search>. If you want to give the final answer, you should put the answer between <answer> and </answer>. Please try again.',
    );
    const env = await franceEnv();
    for (const action of ['Paris', '', '<search> France', '<Search>France</Search>', '<search> France </answer>', '<information>x</information>']) {
      const r = await env.step(action);
      expect(r, action).toEqual({ observation: INVALID_MESSAGE, reward: 0, terminated: false, truncated: false, info: { action: 'invalid', invalidAction: true, success: false } });
    }
  });

  it('turns bad input into messages or EnvErrors, never a crash', async () => {
    const env = await franceEnv();
    await expect(env.step(42 as unknown as string)).rejects.toMatchObject({ code: 'PROTOCOL_ERROR' });
    const huge = await env.step(`<search> ${'capital '.repeat(100_000)} </search>`);
    expect(huge.observation.startsWith('<information>')).toBe(true);
    const empty = await env.step('<search></search>');
    expect(empty.observation).toBe('<information></information>');
    expect((await env.step('<answer></answer>')).observation).toBe(INCORRECT_MESSAGE);
    await expect(env.reset({ taskId: 'capital/XXX' })).rejects.toBeInstanceOf(EnvError);
    await expect(env.reset({ taskId: 7 as unknown as string })).rejects.toMatchObject({ code: 'TASK_UNKNOWN' });
  });
});

describe("search env: SQuAD normalization and exact match (Search-R1's em_check)", () => {
  it('lower-cases, drops ASCII punctuation and the articles a/an/the, collapses whitespace', () => {
    const cases: [string, string][] = [
      ['  The   Euro! ', 'euro'],
      ['U.S. dollar', 'us dollar'],
      ['Washington, D.C.', 'washington dc'],
      ['An apple a day', 'apple day'],
      ['the', ''],
      ['A-ha', 'aha'],
      ["l'a", 'la'],
      // Python's \b is Unicode-aware: the "a" of "théa" is inside a word and stays.
      ['Théa', 'théa'],
      ['Bogotá\tthe\nCity', 'bogotá city'],
      ['Nuku\u02bbalofa', 'nuku\u02bbalofa'],
    ];
    for (const [raw, normalized] of cases) expect(normalizeAnswer(raw), raw).toBe(normalized);
  });

  it('accepts any gold answer or alias, nothing looser', () => {
    expect(exactMatch('eur', ['Euro', 'EUR'])).toBe(true);
    expect(exactMatch('the euro.', ['Euro'])).toBe(true);
    expect(exactMatch('euros', ['Euro'])).toBe(false);
    expect(exactMatch('Paris, France', ['Paris'])).toBe(false);
    expect(exactMatch('', ['Paris'])).toBe(false);
  });
});

describe('search env: questions and splits', () => {
  it('has fixed, disjoint splits with the hop mix of TEST_COUNTS', () => {
    const test = searchTasks('test');
    const train = searchTasks('train');
    expect(test).toHaveLength(200);
    expect(train.length).toBeGreaterThan(2000);
    const trainSet = new Set(train);
    expect(test.filter((id) => trainSet.has(id))).toEqual([]);
    expect(new Set(test).size).toBe(test.length);
    expect(trainSet.size).toBe(train.length);
    const hops = { 1: 0, 2: 0, 3: 0 };
    const kinds = new Map<string, number>();
    for (const id of test) {
      const q = questionOf(id);
      hops[q.hops] += 1;
      kinds.set(q.kind, (kinds.get(q.kind) ?? 0) + 1);
    }
    expect(hops).toEqual({ 1: 80, 2: 70, 3: 50 });
    expect(Object.fromEntries(kinds)).toEqual(TEST_COUNTS);
    // No question text is asked twice, in or across splits.
    const texts = new Set(allQuestions().map((q) => q.text));
    expect(texts.size).toBe(allQuestions().length);
  });

  it('rebuilds the same pool, splits and questions from scratch', async () => {
    const before = { test: [...searchTasks('test')], train: [...searchTasks('train')], q: questionOf(searchTasks('test')[0] as string) };
    vi.resetModules();
    const fresh = await import('../../envs/search/tasks.ts');
    expect(fresh.searchTasks('test')).toEqual(before.test);
    expect(fresh.searchTasks('train')).toEqual(before.train);
    expect(fresh.questionOf(before.q.id)).toEqual(before.q);
  });

  it('writes the example question shapes with gold answers and aliases', () => {
    expect(questionOf('capital/FRA')).toMatchObject({ hops: 1, text: 'What is the capital of France?', answers: ['Paris'] });
    expect(questionOf('capital/ZAF').answers).toEqual(['Pretoria', 'Bloemfontein', 'Cape Town']);
    expect(questionOf('capital-currency/FRA')).toMatchObject({ hops: 2, text: 'Which currency is used by the country whose capital is Paris?', answers: ['Euro', 'EUR'] });
    expect(questionOf('country-of-capital/COL').answers).toEqual(expect.arrayContaining(['Colombia', 'Republic of Colombia']));
    expect(questionOf('capital/COL').answers).toEqual(['Bogotá', 'Bogota']);
    expect(questionOf('currency/POL').answers).toEqual(['Polish złoty', 'Polish zloty', 'PLN']);
    const bridge = allQuestions().find((q) => q.kind === 'border-currency-capital');
    expect(bridge?.text).toMatch(/^What is the capital of the (country|territory) that uses the .+ and borders .+\?$/);
    const chain = allQuestions().find((q) => q.kind === 'capital-border-currency-capital');
    expect(chain?.text).toMatch(/^What is the capital of the (country|territory) that uses the .+ and borders the (country|territory) whose capital is .+\?$/);
    expect(chain?.hops).toBe(3);
  });

  it('only asks questions whose gold answer is written in its evidence articles', () => {
    const byTitle = new Map(corpus().map((d) => [d.title, d.text]));
    for (const q of allQuestions()) {
      expect(q.answers.length, q.id).toBeGreaterThan(0);
      const texts = q.evidence.map((t) => byTitle.get(t));
      expect(texts.every((t) => t !== undefined), `${q.id} evidence ${q.evidence.join(' | ')}`).toBe(true);
      expect(texts.some((t) => t!.includes(q.answers[0] as string)), q.id).toBe(true);
    }
  });

  it('keeps answer sets unique: a bridge entity is the only one that fits', () => {
    // Paris-Euro: France's neighbours that use the euro are several, so no such 3-hop question.
    const ids = new Set(allQuestions().map((q) => q.id));
    expect(ids.has('capital-border-currency-capital/FRA/EUR')).toBe(false);
    // Larger-area answers name one country; the other is not accepted.
    const q = questionOf('larger-area/DEU/FRA');
    expect(q.answers).toContain('France');
    expect(q.answers).not.toContain('Germany');
  });
});

describe('search env: retrieval and the oracle', () => {
  it('uses classic BM25 parameters and finds each evidence article by its title', async () => {
    expect(BM25_PARAMS).toEqual({ k: 1.2, b: 0.75, d: 0 });
    const env = (await franceEnv()) as SearchEnv;
    for (const title of ['Geography of France', 'Euro', 'French language', 'Kingston, Jamaica', 'Micronesia (region)']) {
      const r = await env.step(`<search> ${title} </search>`);
      expect(r.observation, title).toContain(`(Title: "${title}")`);
    }
  });

  it('solves every test question, searching each evidence article first', async () => {
    const turns = new Map<string, number>();
    const summary = await createRolloutSystem({
      env: searchDefinition,
      agent: 'oracle',
      split: 'test',
      seed: 3,
      onEpisode: (o) => turns.set(o.taskId, o.turns),
    }).run();
    expect(summary.successRate).toBe(1);
    for (const [taskId, n] of turns) expect(n, taskId).toBe(questionOf(taskId).evidence.length + 1);
  });

  it("the oracle's searches retrieve the articles it needs", async () => {
    const env = searchDefinition.make() as SearchEnv;
    const oracle = searchDefinition.oracle!(env);
    for (const taskId of searchTasks('test').filter((_, i) => i % 4 === 0)) {
      await env.reset({ taskId });
      for (const title of questionOf(taskId).evidence) {
        const action = await oracle.next();
        expect(action).toBe(`<search> ${title} </search>`);
        expect((await env.step(action)).observation, `${taskId}: ${title}`).toContain(`(Title: "${title}")`);
      }
      expect(await env.step(await oracle.next())).toMatchObject({ reward: 1, terminated: true });
    }
  });
});
