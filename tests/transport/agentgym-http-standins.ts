/**
 * Scripted stand-ins for AgentGym's Python env servers, with their real wire shapes and scoring
 * (read from agentenv-sciworld's environment.py and agentenv-webshop's server.py), so the client
 * can be tested without Python:
 *
 * - SciWorld: `GET /` "This is environment ScienceWorld.", `/create` → `{id}`, `/reset` →
 *   the task fields with `score` 0, `/step` → `{observation, reward, score, done}` where `reward`
 *   is the change in score points; `open door` scores 25, `focus on water` 100 (done), `focus on`
 *   anything else −100 (done), as ScienceWorld's failed tasks do; `GET /action_hint` →
 *   `{possible_actions, possible_objects}` (templates with OBJ/LOC slots); a finished instance
 *   refuses steps with the original's wording.
 * - WebShop: `/create` → a bare id, `/reset {env_idx, session_id}` → `[observation, null]`,
 *   `/step` → `{state, reward, done, info: null}`, `GET /available_actions`, no `/close` (404).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandIn {
  readonly url: string;
  /** Every request as `METHOD /path` with its body, in order. */
  readonly requests: Array<{ route: string; body: unknown }>;
  close(): Promise<void>;
}

type Handler = (route: string, body: Record<string, unknown>, query: URLSearchParams) => { status?: number; json: unknown };

async function serveJson(handler: Handler): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      const route = `${req.method} ${url.pathname}`;
      requests.push({ route, body: text === '' ? Object.fromEntries(url.searchParams) : body });
      const { status = 200, json } = handler(route, body, url.searchParams);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const SCIWORLD_TEMPLATES = ['look around', 'open OBJ', 'focus on OBJ', 'go to LOC', 'connect OBJ to OBJ'];
export const SCIWORLD_OBJECTS = ['door', 'water', 'stove'];

export function sciworldStandIn(): Promise<StandIn> {
  const games = new Map<number, { score: number; done: boolean; opened: boolean }>();
  let next = 0;
  return serveJson((route, body, query) => {
    if (route === 'GET /') return { json: 'This is environment ScienceWorld.' };
    if (route === 'POST /create') {
      games.set(next, { score: 0, done: false, opened: false });
      return { json: { id: next++ } };
    }
    const id = Number(route.startsWith('GET') ? query.get('id') : body['id']);
    const game = games.get(id);
    if (!game) return { json: { error: `The id ${id} is not valid.` } };
    switch (route) {
      case 'POST /reset':
        Object.assign(game, { score: 0, done: false, opened: false });
        return {
          json: { task_name: 'boil', var_num: body['data_idx'], task_description: 'Your task is to boil water.', observation: 'This room is called the kitchen.', reward: 0, score: 0, deleted: false, done: false },
        };
      case 'GET /action_hint':
        return { json: { possible_actions: SCIWORLD_TEMPLATES, possible_objects: SCIWORLD_OBJECTS } };
      case 'POST /close':
        games.delete(id);
        return { json: true };
      case 'POST /step': {
        if (game.done) return { json: { error: `The task with environment ${id} has finished.` } };
        const action = String(body['action']);
        const before = game.score;
        let observation = 'No known action matches that input.';
        if (action === 'open door' && !game.opened) [game.opened, game.score, observation] = [true, game.score + 25, 'The door is now open.'];
        else if (action === 'focus on water') [game.done, game.score, observation] = [true, 100, 'You focus on the water.'];
        else if (action.startsWith('focus on ')) [game.done, game.score, observation] = [true, -100, 'You focus on the wrong thing.'];
        else if (SCIWORLD_TEMPLATES.includes(action) || action.startsWith('go to ')) observation = 'Nothing happens.';
        return { json: { observation, reward: game.score - before, score: game.score, done: game.done } };
      }
    }
    return { status: 404, json: { detail: 'Not Found' } };
  });
}

export function webshopStandIn(): Promise<StandIn> {
  const pages = new Map<number, 'search' | 'results' | 'item' | 'done'>();
  let next = 7;
  const observation = (page: string) => `WebShop [SEP] Instruction: [SEP] i need a red mug [SEP] ${page === 'search' ? 'Search' : page === 'results' ? 'Back to Search [SEP] mug-1 [SEP] Red Mug' : 'Buy Now'}`;
  return serveJson((route, body, query) => {
    if (route === 'GET /') return { json: 'ok' };
    if (route === 'POST /create') {
      pages.set(next, 'search');
      return { json: next++ };
    }
    const id = Number(route.startsWith('GET') ? query.get('env_idx') : body['env_idx']);
    const page = pages.get(id);
    if (page === undefined) return { status: 500, json: 'Internal Server Error' };
    switch (route) {
      case 'POST /reset':
        pages.set(id, 'search');
        return { json: [observation('search'), null] };
      case 'GET /observation':
        return { json: observation(page) };
      case 'GET /available_actions':
        return { json: { has_search_bar: page === 'search', clickables: page === 'search' ? ['search'] : page === 'results' ? ['back to search', 'mug-1'] : ['buy now'] } };
      case 'POST /step': {
        const action = String(body['action']);
        let reward = 0;
        if (page === 'search' && action.startsWith('search[')) pages.set(id, 'results');
        else if (page === 'results' && action === 'click[mug-1]') pages.set(id, 'item');
        else if (page === 'item' && action === 'click[buy now]') [reward] = [0.75, pages.set(id, 'done')];
        const now = pages.get(id) as string;
        return { json: { state: observation(now), reward, done: now === 'done', info: null } };
      }
    }
    return { status: 404, json: { detail: 'Not Found' } };
  });
}
