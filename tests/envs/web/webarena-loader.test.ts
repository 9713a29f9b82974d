import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getEnv, promptFor } from '../../../envs/index.ts';
import { createWebArenaDefinition, describeSkipped, loadWebArenaTasks } from '../../../envs/web/webarena/index.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/webarena');
const ENV = { ACTORGYM_WEB_SHOPPING_URL: 'http://127.0.0.1:7770/', ACTORGYM_WEB_REDDIT_URL: 'http://127.0.0.1:9999' };
const fixture = (id: number): Record<string, unknown> => JSON.parse(readFileSync(path.join(FIXTURES, `${id}.json`), 'utf8'));

const scratch = mkdtempSync(path.join(tmpdir(), 'webarena-loader-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
/** Writes `configs` (one object, or an array) to a new folder and returns it. */
const folderWith = (...configs: unknown[]): string => {
  const dir = path.join(scratch, `set-${++files}`);
  mkdirSync(dir);
  configs.forEach((config, i) => writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(config)));
  return dir;
};

describe('webarena loader', () => {
  it('loads WebArena-shaped configs, replaces placeholders with the site URLs and allows only their origins', () => {
    const loaded = loadWebArenaTasks(FIXTURES, { env: ENV });
    expect(loaded.tasks.map((t) => t.id)).toEqual(['101', '102', '103', '104', '107', '108']);
    const post = loaded.tasks.find((t) => t.id === '104')!;
    expect(post.startUrls).toEqual(['http://127.0.0.1:9999/submit']);
    expect(post.config.eval.reference_url).toBe('http://127.0.0.1:9999/f/cats');
    expect(post.allowedOrigins).toEqual(['http://127.0.0.1:9999']);
    const both = loaded.tasks.find((t) => t.id === '108')!;
    expect(both.startUrls).toEqual(['http://127.0.0.1:7770/product/1', 'http://127.0.0.1:9999/f/cats']);
    expect(both.allowedOrigins).toEqual(['http://127.0.0.1:7770', 'http://127.0.0.1:9999']);
    expect(both.category).toBe('reddit+shopping');
    // Backends a site's pages call (WebArena's map tiles) join every task's allow-list.
    const extra = loadWebArenaTasks(FIXTURES, { env: { ...ENV, ACTORGYM_WEBARENA_EXTRA_ORIGINS: 'http://127.0.0.1:8080/tiles, https://tiles.example' } });
    expect(extra.tasks.find((t) => t.id === '104')!.allowedOrigins).toEqual(['http://127.0.0.1:9999', 'http://127.0.0.1:8080', 'https://tiles.example']);
    expect(() => loadWebArenaTasks(FIXTURES, { env: { ...ENV, ACTORGYM_WEBARENA_EXTRA_ORIGINS: 'tiles' } })).toThrow(/ACTORGYM_WEBARENA_EXTRA_ORIGINS: 'tiles' is not a URL/);
  });

  it('sets aside, with the reason, tasks it cannot score: fuzzy_match without a judge, unsupported helpers', () => {
    const loaded = loadWebArenaTasks(FIXTURES, { env: ENV });
    expect(loaded.skipped.map((t) => [t.id, t.reason])).toEqual([
      ['105', 'string_match with fuzzy_match needs an LLM judge, and none was given'],
      ['106', expect.stringMatching(/url helper func:shopping_get_latest_order_url is not supported/)],
      ['109', expect.stringMatching(/requires login and its storage state .*shopping_state\.json is missing/)],
    ]);
    expect(describeSkipped(loaded)[0]).toMatch(/^1 task\(s\) skipped: string_match with fuzzy_match needs an LLM judge/);
    // With a judge the fuzzy task is in.
    expect(loadWebArenaTasks(FIXTURES, { env: ENV, judge: true }).tasks.map((t) => t.id)).toContain('105');
  });

  it('a missing site variable is an error naming it and the tasks that need it', () => {
    expect(() => loadWebArenaTasks(FIXTURES, { env: { ACTORGYM_WEB_SHOPPING_URL: 'http://127.0.0.1:7770' } })).toThrow(
      /ACTORGYM_WEB_REDDIT_URL is not set: 3 task\(s\) need the reddit site \(tasks 103, 104, 108\); set it to the base URL of your reddit server, e\.g\. http:\/\/localhost:9999/,
    );
    expect(() => loadWebArenaTasks(FIXTURES, { env: { ...ENV, ACTORGYM_WEB_REDDIT_URL: 'ftp://x' } })).toThrow(/ACTORGYM_WEB_REDDIT_URL=ftp:\/\/x must be an http/);
    expect(() => loadWebArenaTasks(FIXTURES, { env: { ...ENV, ACTORGYM_WEB_REDDIT_URL: 'http://u:p@h:9999' } })).toThrow(/without query, fragment or credentials/);
    // Written as the browser writes URLs: lower-case host, no default port.
    expect(loadWebArenaTasks(FIXTURES, { env: { ...ENV, ACTORGYM_WEB_REDDIT_URL: 'HTTP://LocalHost:80/' } }).siteUrls.reddit).toBe('http://localhost');
    // A site named only in `sites` needs its variable too: the browser must be allowed there.
    const wiki = folderWith({ ...fixture(101), sites: ['shopping', 'wikipedia'] });
    expect(() => loadWebArenaTasks(wiki, { env: ENV })).toThrow(/ACTORGYM_WEB_WIKIPEDIA_URL is not set/);
  });

  it('rejects malformed configs, naming the file, the task and the field', () => {
    const cases: [unknown, RegExp][] = [
      [{ ...fixture(101), intent: undefined }, /0\.json \(task 101\): intent: /],
      [{ ...fixture(101), eval: { ...(fixture(101).eval as object), eval_types: ['html_match'] } }, /eval\.eval_types\[0\]: /],
      [{ ...fixture(101), eval: { ...(fixture(101).eval as object), reference_answers: null } }, /eval\.reference_answers: string_match needs reference_answers/],
      [{ ...fixture(103), eval: { ...(fixture(103).eval as object), url_note: 'PRED in GOLD' } }, /eval\.url_note: url_note: WebArena defines only "GOLD in PRED"/],
      [{ ...fixture(104), eval: { ...(fixture(104).eval as object), program_html: [{ url: 'last', locator: '' }] } }, /eval\.program_html\[0\]\.required_contents: /],
      [{ ...fixture(104), eval: { ...(fixture(104).eval as object), program_html: [{ url: 'last', locator: '', required_contents: { exact: 'x' } }] } }, /required_contents must be \{"exact_match": string\}/],
      [{ ...fixture(101), sites: ['amazon'] }, /sites\[0\]: /],
      [{ ...fixture(101), task_id: '101' }, /task_id: /],
    ];
    for (const [config, message] of cases) expect(() => loadWebArenaTasks(folderWith(config), { env: ENV }), String(message)).toThrow(message);
    expect(() => loadWebArenaTasks(folderWith(fixture(101), fixture(101)), { env: ENV })).toThrow(/task_id 101 appears twice, in .*0\.json and .*1\.json/);
    expect(() => loadWebArenaTasks(path.join(scratch, 'nope'), { env: ENV })).toThrow(/does not exist/);
  });

  it('reads an array file like test.raw.json, and login tasks without their storage state are skipped', () => {
    const file = path.join(scratch, 'test.raw.json');
    writeFileSync(file, JSON.stringify([fixture(101), { ...fixture(102), require_login: true, storage_state: './.auth/shopping_state.json' }]));
    const loaded = loadWebArenaTasks(file, { env: { ...ENV, ACTORGYM_WEBARENA_AUTH_DIR: scratch } });
    expect(loaded.tasks.map((t) => t.id)).toEqual(['101']);
    expect(loaded.skipped[0]!.reason).toContain(`requires login and its storage state ${path.join(scratch, 'shopping_state.json')} is missing`);
    writeFileSync(path.join(scratch, 'shopping_state.json'), JSON.stringify({ cookies: [], origins: [] }));
    const logged = loadWebArenaTasks(file, { env: { ...ENV, ACTORGYM_WEBARENA_AUTH_DIR: scratch } });
    expect(logged.tasks.find((t) => t.id === '102')!.storageState).toBe(path.join(scratch, 'shopping_state.json'));
  });

  it('is an env definition: test split of task ids, categories by site, the web prompt; `webarena:DIR` through the registry', () => {
    const definition = createWebArenaDefinition({ tasks: FIXTURES, env: ENV });
    expect(definition.spec.splits).toEqual({ train: 0, test: 6 });
    expect(definition.tasks('test')).toEqual(['101', '102', '103', '104', '107', '108']);
    expect(definition.categoryOf!('104')).toBe('reddit');
    expect(() => definition.categoryOf!('105')).toThrow(/no task "105"/);
    expect(definition.prompt!().family).toBe('web');
    expect(promptFor(`webarena:${FIXTURES}`).family).toBe('web');
    const saved = { ...process.env };
    Object.assign(process.env, ENV);
    try {
      const viaRegistry = getEnv(`webarena:${FIXTURES}`);
      expect(viaRegistry.spec.id).toBe(`webarena:${FIXTURES}`);
      expect(getEnv(`webarena:${FIXTURES}`)).toBe(viaRegistry);
      expect(() => getEnv('webarena')).toThrow(/webarena needs its task configs: --env webarena:DIR/);
      expect(() => getEnv('nope')).toThrow(/known envs: babyai.*webarena:ARG/);
    } finally {
      process.env = saved;
    }
  });
});
