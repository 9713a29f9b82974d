/**
 * The answer readers (envs/web/tasks/normalise.ts) and the optional LLM judge for free-text
 * answers, without a browser: each reader finds every value of its kind, so one value is read
 * and several are an enumeration; the judge is called only for fuzzy_match answers and its
 * name is recorded on the verdict.
 */
import { describe, expect, it } from 'vitest';
import {
  answerDate, answerId, answerName, answerNumber, createChatJudge, evaluateWebTask, evaluateWebTaskJudged, extractDates, extractIds, extractNumbers, findNames,
  judgeMessages, matchAnswer, readJudgement, sameText, saysNotAchievable, vocabulary, webTask, webTasks, type AnswerJudge, type JudgeMessage, type WebTask,
} from '../../../envs/web/tasks/index.ts';

describe('number reader', () => {
  it('reads money, scales, thousands and words, and refuses several numbers', () => {
    expect(answerNumber('3.5 out of 5')).toBe(3.5);
    expect(answerNumber('3.50')).toBe(3.5);
    expect(answerNumber('24.99 USD')).toBe(24.99);
    expect(answerNumber('USD 24.99')).toBe(24.99);
    expect(answerNumber('$1,249.00')).toBe(1249);
    expect(answerNumber('five reviews')).toBe(5);
    expect(answerNumber('-3 karma')).toBe(-3);
    expect(extractNumbers('3-5')).toEqual([3, 5]);
    expect(extractNumbers('2023-04-17')).toHaveLength(3);
    expect(answerNumber('between 3 and 5')).toBeUndefined();
    expect(answerNumber('no idea')).toBeUndefined();
  });
  it('does not read digits inside names and ids as numbers', () => {
    expect(extractNumbers('sleepy_lynx76 has 13 karma')).toEqual([13]);
    expect(extractNumbers('OFF-1330')).toEqual([]);
  });
});

describe('date reader', () => {
  it('reads ISO, US numeric and month-name dates as one YYYY-MM-DD', () => {
    for (const text of ['2023-04-17', '2023/4/17', 'April 17, 2023', 'Apr. 17th 2023', '17 Apr 2023', '17th of April, 2023', '04/17/2023', '17/04/2023', 'placed 2023-04-17 14:03']) {
      expect(answerDate(text), text).toBe('2023-04-17');
    }
  });
  it('refuses impossible dates, a year alone, and two dates', () => {
    expect(extractDates('2023-02-30')).toEqual([]);
    expect(extractDates('in 2023')).toEqual([]);
    expect(extractDates('2023-04-17 or April 18, 2023')).toEqual(['2023-04-17', '2023-04-18']);
    expect(answerDate('2023-04-17 or April 18, 2023')).toBeUndefined();
    expect(answerDate('April 17, 2023 (2023-04-17)')).toBe('2023-04-17'); // the same date twice is one
  });
});

describe('id reader', () => {
  it('finds ids shaped like the expected one, ignoring case and separators', () => {
    expect(answerId('SKU: OFF-1330', 'ELE-1025')).toBe('OFF1330');
    expect(answerId('off 1330', 'ELE-1025')).toBe('OFF1330');
    expect(answerId('order 000000007 placed', '000000022')).toBe('000000007');
    expect(extractIds('OFF-1330 or ELE-1025', 'ELE-1025')).toHaveLength(2);
    expect(extractIds('OFF-13300', 'ELE-1025')).toEqual([]);
  });
});

describe('name reader', () => {
  const names = vocabulary('shop/products');
  it('finds whole names of a vocabulary, ignoring case and punctuation, longest first', () => {
    const one = names[0] as string;
    expect(answerName(`It is "${one.toUpperCase()}".`, names)).toBe(one);
    expect(answerName(one.replace(/,/g, ''), names)).toBe(one);
    expect(findNames(`${one}; ${names[1] as string}`, names)).toHaveLength(2);
    expect(answerName('sleepy_lynx76x', ['sleepy_lynx76'])).toBeUndefined(); // part of a longer word
  });
  it('knows every vocabulary and refuses an unknown one', () => {
    for (const v of ['shop/products', 'shop/brands', 'shop/categories', 'forum/usernames', 'forum/titles', 'forum/forums'] as const) expect(vocabulary(v).length, v).toBeGreaterThan(5);
    expect(() => vocabulary('shop/nope' as never)).toThrow(/unknown name vocabulary "shop\/nope"/);
  });
  it('adds the expected name to a list that lacks it, so a right answer is never refused', () => {
    expect(matchAnswer({ type: 'name', expected: 'Zed Brand', among: ['Other'] }, 'zed brand').reward).toBe(1);
  });
});

describe('text and N/A', () => {
  it('compares form text by words, not case, spacing, quotes or a final period', () => {
    expect(sameText('  Works exactly as DESCRIBED ', '"Works exactly as described."')).toBe(true);
    expect(sameText('Terrible, do not buy.', 'Works exactly as described.')).toBe(false);
  });
  it('recognises N/A, and exact_match N/A takes it', () => {
    expect(['N/A', 'n/a: no such product', 'NA'].map(saysNotAchievable)).toEqual([true, true, true]);
    expect(['Nathan', 'an answer'].map(saysNotAchievable)).toEqual([false, false]);
    expect(matchAnswer({ type: 'exact_match', expected: 'N/A' }, 'n/a.').reward).toBe(1);
  });
});

describe('LLM judge for free-text answers', () => {
  const task: WebTask = {
    id: 'forum/info/test/1', site: 'forum', kind: 'info', category: 'forum/info', template: 'test', split: 'test',
    objective: 'What is the post about? Answer in a few words.', startPath: '/', evaluator: { type: 'fuzzy_match', expected: 'plate tectonics' }, plan: [{ stop: 'plate tectonics' }],
  };
  /** A scripted judge: says "correct" when the answer mentions a keyword, and counts its calls. */
  const scripted = (keyword: string) => {
    const calls: JudgeMessage[][] = [];
    const judge = createChatJudge('openai:scripted', async (messages) => {
      calls.push([...messages]);
      return messages.at(-1)?.content.match(/student answer: (.*)/)?.[1]?.includes(keyword) ? 'The answer is correct.' : 'Incorrect.';
    });
    return { judge, calls };
  };

  it('without a judge, fuzzy_match is an exact match', async () => {
    expect(evaluateWebTask(task, { answer: 'Plate tectonics.', finalUrl: '' }).reward).toBe(1);
    expect((await evaluateWebTaskJudged(task, { answer: 'about moving tectonic plates', finalUrl: '' })).reward).toBe(0);
  });

  it('with a judge, grades free text, names the judge, and sends the question, reference and answer', async () => {
    const { judge, calls } = scripted('tectonic');
    const yes = await evaluateWebTaskJudged(task, { answer: 'about moving tectonic plates', finalUrl: '' }, judge);
    expect(yes).toMatchObject({ reward: 1, judge: 'openai:scripted' });
    const no = await evaluateWebTaskJudged(task, { answer: 'about volcanoes', finalUrl: '' }, judge);
    expect(no).toMatchObject({ reward: 0, judge: 'openai:scripted' });
    expect(calls).toHaveLength(2);
    expect(calls[0]?.at(-1)?.content).toContain(`question: ${task.objective}`);
    expect(calls[0]?.at(-1)?.content).toContain('reference answer: plate tectonics');
  });

  it('never calls the judge for typed answers, URLs, or an exact free-text answer', async () => {
    const { judge, calls } = scripted('');
    const date = webTask(webTasks('test').find((id) => id.startsWith('shop/info/order-date/')) as string);
    expect((await evaluateWebTaskJudged(date, { answer: 'some day', finalUrl: '' }, judge)).reward).toBe(0);
    expect((await evaluateWebTaskJudged(task, { answer: 'plate tectonics', finalUrl: '' }, judge)).reward).toBe(1);
    expect(calls).toHaveLength(0);
  });

  it('reads only a plain "correct" as correct', () => {
    expect(readJudgement('Correct.')).toBe(true);
    expect(readJudgement('The answer is partially correct.')).toBe(false);
    expect(readJudgement('incorrect')).toBe(false);
    expect(readJudgement('I cannot tell.')).toBe(false);
    expect(judgeMessages({ question: 'q', reference: 'r', answer: 'a' }).at(-1)?.content).toMatch(/several candidate answers[^\n]*incorrect/);
  });

  it('a failed judge call throws rather than scoring', async () => {
    const broken: AnswerJudge = { name: 'openai:down', grade: () => Promise.reject(new Error('ECONNREFUSED')) };
    await expect(evaluateWebTaskJudged(task, { answer: 'tectonic plates', finalUrl: '' }, broken)).rejects.toThrow(/ECONNREFUSED/);
  });
});
