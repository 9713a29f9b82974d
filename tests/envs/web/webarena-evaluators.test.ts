import { describe, expect, it } from 'vitest';
import { webArenaConfigSchema, type ProgramHtmlTarget } from '../../../envs/web/webarena/config-schema.ts';
import { evaluateWebArenaTask } from '../../../envs/web/webarena/evaluate.ts';
import { unescapeHtml } from '../../../envs/web/webarena/html-unescape.ts';
import { readJudgeVerdict, webArenaJudgeFromChat, type JudgeMessage, type WebArenaJudgeRequest } from '../../../envs/web/webarena/judge.ts';
import { parseHelperCall, redditPostUrl } from '../../../envs/web/webarena/page-helpers.ts';
import { programHtmlChecks, unsupportedTarget, type WebArenaPage } from '../../../envs/web/webarena/program-html.ts';
import { cleanAnswer, stringMatchChecks } from '../../../envs/web/webarena/string-match.ts';
import type { WebArenaTask } from '../../../envs/web/webarena/task.ts';
import { urlMatchCheck } from '../../../envs/web/webarena/url-match.ts';

const passes = async (answers: Parameters<typeof stringMatchChecks>[0], answer: string, judge?: (r: WebArenaJudgeRequest) => Promise<boolean>): Promise<boolean> =>
  (await stringMatchChecks(answers, answer, { intent: 'q', stringNote: 'no such page', judge })).every((c) => c.passed);

describe('webarena string_match', () => {
  it('exact_match ignores case, surrounding space and one pair of quotes, nothing else', async () => {
    expect(cleanAnswer(`  "Quest Lumaflex™ Band" `)).toBe('quest lumaflex™ band');
    expect(await passes({ exact_match: 'Quest Lumaflex™ Band' }, "'quest lumaflex™ band'")).toBe(true);
    expect(await passes({ exact_match: '$12.50' }, '$12.50')).toBe(true);
    expect(await passes({ exact_match: '$12.50' }, 'The price is $12.50')).toBe(false);
    expect(await passes({ exact_match: '12.5' }, '12.50')).toBe(false);
  });

  it('must_include needs every entry; a lone one-character entry must be a whole token', async () => {
    expect(await passes({ must_include: ['Blue Mug', 'Red Mug'] }, 'red mug and blue mug')).toBe(true);
    expect(await passes({ must_include: ['Blue Mug', 'Red Mug'] }, 'Blue Mug')).toBe(false);
    expect(await passes({ must_include: ['0'] }, '10 items')).toBe(false);
    expect(await passes({ must_include: ['0'] }, 'there are 0 items.')).toBe(true);
    // With two entries WebArena does not tokenize: '0' is found inside '10'.
    expect(await passes({ must_include: ['0', 'items'] }, '10 items')).toBe(true);
  });

  it('every kind of reference_answers must hold at once', async () => {
    expect(await passes({ exact_match: 'yes', must_include: ['yes'] }, 'yes')).toBe(true);
    expect(await passes({ exact_match: 'yes', must_include: ['no'] }, 'yes')).toBe(false);
  });

  it('fuzzy_match asks the injected judge with the intent and each reference', async () => {
    const asked: WebArenaJudgeRequest[] = [];
    const judge = async (request: WebArenaJudgeRequest): Promise<boolean> => {
      asked.push(request);
      return request.kind === 'fuzzy_match' && request.answer.includes('colour');
    };
    expect(await passes({ fuzzy_match: ['they like the colour', 'it is sturdy'] }, 'They like the colour', judge)).toBe(true);
    expect(asked.map((r) => r.kind === 'fuzzy_match' && r.reference)).toEqual(['they like the colour', 'it is sturdy']);
    expect(await passes({ fuzzy_match: ['they like the colour'] }, 'too small', judge)).toBe(false);
  });

  it('fuzzy_match N/A: an exact N/A passes; a stated reason goes to the judge, or fails without one', async () => {
    expect(await passes({ fuzzy_match: 'N/A' }, 'n/a')).toBe(true);
    expect(await passes({ fuzzy_match: 'N/A' }, 'there is no such page')).toBe(false);
    const judge = async (r: WebArenaJudgeRequest): Promise<boolean> => r.kind === 'unachievable' && r.reason === 'no such page' && r.answer.includes('no such page');
    expect(await passes({ fuzzy_match: 'N/A' }, 'there is no such page', judge)).toBe(true);
    expect(await passes({ fuzzy_match: 'N/A' }, '42', judge)).toBe(false);
  });

  it('a judge over a chat model sends the question, reference and answer, and reads the verdict', async () => {
    const sent: (readonly JudgeMessage[])[] = [];
    const judge = webArenaJudgeFromChat(async (messages) => {
      sent.push(messages);
      return messages[1]!.content.includes('student answer: blue') ? 'Correct.' : 'Incorrect.';
    });
    expect(await passes({ fuzzy_match: ['the blue one'] }, 'Blue', judge)).toBe(true);
    expect(sent[0]![1]!.content).toMatch(/question: q\nreference answer: the blue one\n[\s\S]*student answer: blue/);
    expect(await passes({ fuzzy_match: ['the blue one'] }, 'red', judge)).toBe(false);
    await expect(webArenaJudgeFromChat(async () => 'hmm')({ kind: 'fuzzy_match', intent: 'q', reference: 'r', answer: 'a' })).rejects.toThrow(/no verdict/);
  });

  it("reads a judge's reply as WebArena does", () => {
    expect(readJudgeVerdict('fuzzy_match', 'The answer is correct.')).toBe(true);
    expect(readJudgeVerdict('fuzzy_match', 'Partially correct')).toBe(false);
    expect(readJudgeVerdict('fuzzy_match', 'incorrect')).toBe(false);
    expect(readJudgeVerdict('unachievable', 'same')).toBe(true);
    expect(readJudgeVerdict('unachievable', 'different')).toBe(false);
    expect(() => readJudgeVerdict('fuzzy_match', 'maybe')).toThrow(/no verdict/);
  });
});

describe('webarena url_match (GOLD in PRED)', () => {
  const h = 'http://127.0.0.1:7770';
  it('the reference host and path must be inside the final one; trailing slashes do not matter', () => {
    expect(urlMatchCheck(`${h}/f/cats/`, `${h}/f/cats`).passed).toBe(true);
    expect(urlMatchCheck(`${h}/f/cats`, `${h}/f/cats/1/post`).passed).toBe(true);
    expect(urlMatchCheck(`${h}/f/cats`, `${h}/f/dogs`).passed).toBe(false);
    expect(urlMatchCheck(`${h}/f/cats`, 'http://127.0.0.1:9999/f/cats').passed).toBe(false);
  });
  it('|OR| offers alternatives; each reference query parameter needs one of its values, others are ignored', () => {
    expect(urlMatchCheck(`${h}/f/cats |OR| ${h}/f/kittens`, `${h}/f/kittens`).passed).toBe(true);
    expect(urlMatchCheck(`${h}/search?q=mug&sort=asc`, `${h}/search?sort=asc&q=mug&page=2`).passed).toBe(true);
    expect(urlMatchCheck(`${h}/search?q=mug`, `${h}/search?q=cup`).passed).toBe(false);
    expect(urlMatchCheck(`${h}/issues/?label_name%5B%5D=help%20wanted`, `${h}/issues/?label_name[]=help+wanted`).passed).toBe(true);
  });
});

/** A page stand-in: a URL and values for expressions, as the browser would give. */
function fakePage(values: Record<string, unknown>): WebArenaPage & { visited: string[]; ran: string[] } {
  const visited: string[] = [];
  const ran: string[] = [];
  return {
    visited,
    ran,
    goto: async (url) => void visited.push(url),
    evaluate: async (expression) => {
      ran.push(expression);
      const key = Object.keys(values).find((k) => expression.includes(k));
      if (key === undefined) throw new Error('TypeError: null has no outerText');
      return values[key];
    },
  };
}

const target = (t: Partial<ProgramHtmlTarget>): ProgramHtmlTarget => ({ url: 'last', locator: '', required_contents: { must_include: ['x'] }, ...t }) as ProgramHtmlTarget;

describe('webarena program_html', () => {
  it('reads the locator on the target URL, unescaped, and checks exact_match and must_include with |OR|', async () => {
    const page = fakePage({ '.title': 'Tom &amp; Jerry', '.body': 'naps in the sun' });
    const exact = await programHtmlChecks(page, target({ url: 'http://f/x', locator: "document.querySelector('.title').outerText", required_contents: { exact_match: 'tom & jerry' } }), 'http://f/last');
    expect(exact.map((c) => c.passed)).toEqual([true]);
    expect(page.visited).toEqual(['http://f/x']);
    const include = await programHtmlChecks(page, target({ locator: "document.querySelector('.body').outerText", required_contents: { must_include: ['sleeps in the sun |OR| naps in the sun', 'all day'] } }), 'http://f/last');
    expect(include.map((c) => c.passed)).toEqual([true, false]);
    expect(page.visited).toEqual(['http://f/x']); // `last` stays on the page
  });

  it('a locator that throws reads as empty; prep_actions run first and their errors are ignored', async () => {
    const page = fakePage({ "('.amount')": '20' });
    expect((await programHtmlChecks(page, target({ locator: "document.querySelector('.gone').value", required_contents: { exact_match: '' } }), 'u'))[0]!.passed).toBe(true);
    const checks = await programHtmlChecks(page, target({ locator: "document.querySelector('.amount').value", prep_actions: ["document.querySelector('.open').click()"], required_contents: { exact_match: '20' } }), 'u');
    expect(checks[0]!.passed).toBe(true);
    expect(page.ran.at(-2)).toContain(".open').click()");
  });

  it("an empty locator reads the page's HTML; func:reddit_get_post_url cuts the final URL to its post", async () => {
    const page = fakePage({ outerHTML: '<html><body><p>Posted!</p></body></html>' });
    const checks = await programHtmlChecks(page, target({ url: "func:reddit_get_post_url('__last_url__')", required_contents: { must_include: ['Posted!'] } }), 'http://r:9999/f/cats/12/my-post/comment/3');
    expect(checks[0]!.passed).toBe(true);
    expect(page.visited).toEqual(['http://r:9999/f/cats/12/']);
    expect(redditPostUrl('http://r:9999/forums')).toBe('http://r:9999/forums');
  });

  it('gitlab_get_project_memeber_role runs in the page; unsupported helpers and locators are named', async () => {
    const page = fakePage({ '@yjlou': 'Maintainer' });
    const checks = await programHtmlChecks(page, target({ locator: "func:gitlab_get_project_memeber_role(__page__, 'yjlou')", required_contents: { exact_match: 'maintainer' } }), 'u');
    expect(checks[0]!.passed).toBe(true);
    expect(unsupportedTarget(target({ locator: "func:shopping_get_sku_latest_review_rating('B00J8RZL7I')" }))).toMatch(/shopping_get_sku_latest_review_rating is not supported \(it needs the Magento admin REST API\)/);
    expect(unsupportedTarget(target({ url: 'func:shopping_get_latest_order_url()' }))).toMatch(/url helper func:shopping_get_latest_order_url is not supported/);
    expect(unsupportedTarget(target({ locator: 'window.foo' }))).toMatch(/locator 'window.foo' is not supported/);
    expect(unsupportedTarget(target({ locator: "[...document.querySelectorAll('a')].map(a => a.href).join(' ')" }))).toBeUndefined();
    expect(parseHelperCall("func:f(__page__, 'a\\'b')")).toEqual({ name: 'f', args: [{ page: true }, "a'b"] });
  });

  it('unescapes numeric and common named entities as html.unescape', () => {
    expect(unescapeHtml('&lt;b&gt; &#39;x&#x27; &quot;&amp;&trade; &unknown;')).toBe(`<b> 'x' "&™ &unknown;`);
  });
});

describe('webarena evaluator combination', () => {
  it('the reward is 1 only when every evaluator of eval_types passes', async () => {
    const config = webArenaConfigSchema.parse({
      task_id: 9, sites: ['reddit'], start_url: 'http://r/', intent: 'post',
      eval: { eval_types: ['url_match', 'program_html'], reference_answers: null, reference_url: 'http://r/f/cats', program_html: [{ url: 'last', locator: "document.querySelector('h1').outerText", required_contents: { exact_match: 'Hi' } }] },
    });
    const task: WebArenaTask = { id: '9', file: 'x', config, sites: ['reddit'], startUrls: ['http://r/'], allowedOrigins: ['http://r'], category: 'reddit' };
    const good = await evaluateWebArenaTask(task, { answer: '', finalUrl: 'http://r/f/cats/1/hi', page: fakePage({ h1: 'Hi' }) });
    expect(good.reward).toBe(1);
    const wrongUrl = await evaluateWebArenaTask(task, { answer: '', finalUrl: 'http://r/f/dogs/1/hi', page: fakePage({ h1: 'Hi' }) });
    expect(wrongUrl.reward).toBe(0);
    expect(wrongUrl.checks.map((c) => c.passed)).toEqual([false, true]);
    const wrongPage = await evaluateWebArenaTask(task, { answer: '', finalUrl: 'http://r/f/cats/1/hi', page: fakePage({ h1: 'Bye' }) });
    expect(wrongPage.reward).toBe(0);
  });
});
