import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Bm25Retriever,
  chooseRetriever,
  createSearchDefinition,
  HttpRetriever,
  INCORRECT_MESSAGE,
  RETRIEVER_URL_ENV,
  SearchEnv,
  searchSpec,
} from '../../envs/search/index.ts';

type Handler = (body: string, req: http.IncomingMessage, res: http.ServerResponse) => void;

interface Fake {
  readonly url: string;
  readonly requests: { path: string; body: unknown }[];
  close(): Promise<void>;
}

const servers: Fake[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A tiny stand-in for Search-R1's retrieval server on a free port. */
async function fakeRetriever(handler: Handler): Promise<Fake> {
  const requests: { path: string; body: unknown }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', body: body ? JSON.parse(body) : undefined });
      handler(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: Fake = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(fake);
  return fake;
}

const json = (value: unknown): Handler => (_body, _req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

const SEARCH_R1_REPLY = {
  result: [
    [
      { document: { id: '1', contents: '"Evan Morris"\nEvan L. Morris was a lobbyist.' }, score: 0.91 },
      { document: { id: '2', contents: '"Paris"\nParis is the capital of France.\nIt is on the Seine.' }, score: 0.85 },
      { document: { id: '3', contents: '"Lyon"\nLyon is a city.' }, score: 0.5 },
      { document: { id: '4', contents: '"Extra"\nNot shown: top-3 only.' }, score: 0.1 },
    ],
  ],
};

async function envOn(url: string, timeoutMs = 2_000): Promise<SearchEnv> {
  const env = createSearchDefinition({ retrieverUrl: url, retrieverTimeoutMs: timeoutMs }).make() as SearchEnv;
  await env.reset({ taskId: 'capital/FRA' });
  return env;
}

describe('search env: external retriever (Search-R1 /retrieve)', () => {
  it("sends {queries, topk} and formats the top-3 hits as AgentGym's <information> block", async () => {
    const fake = await fakeRetriever(json(SEARCH_R1_REPLY));
    const env = await envOn(`${fake.url}/retrieve`);
    const r = await env.step('<search> who is Evan Morris </search>');
    expect(r.observation).toBe(
      '<information>Doc 1(Title: "Evan Morris") Evan L. Morris was a lobbyist.\n' +
        'Doc 2(Title: "Paris") Paris is the capital of France.\nIt is on the Seine.\n' +
        'Doc 3(Title: "Lyon") Lyon is a city.</information>',
    );
    expect(fake.requests).toEqual([{ path: '/retrieve', body: { queries: ['who is Evan Morris'], topk: 3, return_scores: true } }]);
    expect(env.retriever.name).toBe(`http ${fake.url}/retrieve`);
  });

  it('adds /retrieve to a bare server URL and accepts replies without scores', async () => {
    const fake = await fakeRetriever(json({ result: [[{ id: '9', contents: '"Doc"\ntext' }]] }));
    const env = await envOn(fake.url);
    expect((await env.step('<search> q </search>')).observation).toBe('<information>Doc 1(Title: "Doc") text</information>');
    expect(fake.requests[0]?.path).toBe('/retrieve');
  });

  it('is chosen by ACTORGYM_SEARCH_RETRIEVER_URL, else the local BM25 engine', () => {
    expect(RETRIEVER_URL_ENV).toBe('ACTORGYM_SEARCH_RETRIEVER_URL');
    const viaEnv = chooseRetriever({}, { [RETRIEVER_URL_ENV]: 'http://10.0.0.1:8000/retrieve' });
    expect(viaEnv).toBeInstanceOf(HttpRetriever);
    expect(viaEnv.name).toBe('http http://10.0.0.1:8000/retrieve');
    expect(chooseRetriever({}, { [RETRIEVER_URL_ENV]: '  ' })).toBeInstanceOf(Bm25Retriever);
    expect(chooseRetriever({}, {})).toBeInstanceOf(Bm25Retriever);
    expect(chooseRetriever({ retrieverUrl: 'http://a:1/r' }, { [RETRIEVER_URL_ENV]: 'http://b:2/r' }).name).toBe('http http://a:1/r');
    expect(() => chooseRetriever({}, { [RETRIEVER_URL_ENV]: 'http://a:1', ACTORGYM_SEARCH_RETRIEVER_TIMEOUT_MS: 'soon' })).toThrow(/TIMEOUT_MS must be a positive number/);
  });

  it('rejects a malformed URL when the env is made', () => {
    expect(() => new SearchEnv(searchSpec, { retrieverUrl: 'not a url' })).toThrow(expect.objectContaining({ code: 'PROTOCOL_ERROR', message: expect.stringMatching(/not a valid URL/) }));
    expect(() => new SearchEnv(searchSpec, { retrieverUrl: 'ftp://x/retrieve' })).toThrow(/must be http/);
  });

  it('fails a search with ENV_LOST when the endpoint is down, and the episode can go on after', async () => {
    const fake = await fakeRetriever(json(SEARCH_R1_REPLY));
    const env = await envOn(`${fake.url}/retrieve`);
    await fake.close();
    const error = await env.step('<search> France </search>').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'EnvError', code: 'ENV_LOST' });
    expect((error as Error).message).toMatch(new RegExp(`search retriever ${fake.url}/retrieve is unreachable \\(ECONNREFUSED\\).*${RETRIEVER_URL_ENV}`));
    // Answers never touch the retriever.
    expect((await env.step('<answer> Lyon </answer>')).observation).toBe(INCORRECT_MESSAGE);
    expect(await env.step('<answer> Paris </answer>')).toMatchObject({ reward: 1, terminated: true });
  });

  it('fails with ENV_TIMEOUT when the endpoint does not answer in time', async () => {
    const fake = await fakeRetriever(() => undefined);
    const env = await envOn(`${fake.url}/retrieve`, 150);
    await expect(env.step('<search> France </search>')).rejects.toMatchObject({ code: 'ENV_TIMEOUT', message: expect.stringMatching(/did not answer within 150 ms/) });
  });

  it('fails with PROTOCOL_ERROR on an HTTP error, non-JSON or a reply of the wrong shape', async () => {
    const cases: [Handler, RegExp][] = [
      [(_b, _q, res) => res.writeHead(500).end('index not loaded'), /answered HTTP 500: index not loaded/],
      [(_b, _q, res) => res.writeHead(200).end('<html>'), /did not answer JSON/],
      [json({ results: [] }), /no "result" field/],
      [json({ result: ['x'] }), /not a list of hit lists/],
      [json({ result: [[{ document: { text: 'no contents' } }]] }), /hit 0 has no string "contents"/],
    ];
    for (const [handler, message] of cases) {
      const fake = await fakeRetriever(handler);
      const env = await envOn(`${fake.url}/retrieve`);
      await expect(env.step('<search> q </search>')).rejects.toMatchObject({ code: 'PROTOCOL_ERROR', message: expect.stringMatching(message) });
    }
  });
});
