/**
 * The web env's browser half: memory per session with N sessions open in the one shared
 * Chromium (RSS and PSS of this process plus every Chromium process, from /proc, divided by N),
 * session open time, and step latency (observe; click on a link that navigates, then go_back)
 * p50/p95, sequential, then steps/s with every session stepping at once. Pages: the bundled
 * shop's home page (one site instance per session) or a small fixture page.
 *
 *   npx tsx bench/web-browser.ts [sessions=16,32] [page=shop|fixture] [steps=40]
 */
import { pathToFileURL } from 'node:url';
import { BrowserHost } from '../envs/web/browser/browser-host.ts';
import { parseWebAction, type WebAction } from '../envs/web/browser/grammar.ts';
import { treePssBytes, treeRssBytes } from '../envs/web/browser/processes.ts';
import { openWebSession, type WebSession } from '../envs/web/browser/web-session.ts';
import { startSiteServer } from '../envs/web/site-server.ts';
import { startFixtureServer } from '../envs/web/fixtures/fixture-server.ts';

const MB = 1024 * 1024;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function action(text: string): WebAction {
  const parsed = parseWebAction(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.action;
}

interface Target {
  /** Start URL and instance id for session `i`. */
  start(i: number): { url: string; instanceId: string };
  /** The id of a link that navigates to another page, from the tree. */
  link(tree: string): string | undefined;
  close(): Promise<void>;
}

function idOnLine(tree: string, test: (line: string, next: string) => boolean): string | undefined {
  const lines = tree.split('\n');
  const line = lines.find((l, i) => test(l, lines[i + 1] ?? ''));
  return line ? /\[(\d+)\]/.exec(line)?.[1] : undefined;
}

async function target(page: string): Promise<Target> {
  if (page === 'fixture') {
    const server = await startFixtureServer();
    return { start: (i) => ({ url: `${server.url}/index.html`, instanceId: `bench-${i}` }), link: (tree) => idOnLine(tree, (line) => /link 'Second page'/.test(line)), close: () => server.close() };
  }
  const server = await startSiteServer();
  return {
    start: () => ({ url: `${server.urls.shop}/`, instanceId: server.createInstance() }),
    // A category link: the line after it counts the category's products.
    link: (tree) => idOnLine(tree, (line, next) => / link '/.test(line) && /\(\d+ products\)/.test(next)),
    close: () => server.close(),
  };
}

/** observe, click the link, observe, go_back: returns [observe ms, click ms]. */
async function step(session: WebSession, link: Target['link']): Promise<[number, number, boolean]> {
  let start = performance.now();
  const before = await session.observe();
  const observeMs = performance.now() - start;
  const id = link(before.tree);
  if (!id) throw new Error(`no link to click on ${before.url}:\n${before.tree.slice(0, 2000)}`);
  start = performance.now();
  const result = await session.act(action(`click [${id}]`));
  const clickMs = performance.now() - start;
  await session.observe();
  await session.act(action('go_back'));
  return [observeMs, clickMs, result.ok && result.message === ''];
}

export async function runWebBrowserBench(counts: readonly number[], page: string, steps: number): Promise<void> {
  const rows: [string, string][] = [];
  const site = await target(page);
  try {
    for (const count of counts) {
      const host = new BrowserHost({ idleCloseMs: 60_000 });
      const baseRss = treeRssBytes();
      const sessions: WebSession[] = [];
      const openMs: number[] = [];
      // Open four at a time: what a pool resetting its envs does.
      for (let i = 0; i < count; i += 4) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(4, count - i) }, async (_, k) => {
            const { url, instanceId } = site.start(i + k);
            const start = performance.now();
            const session = await openWebSession({ instanceId, startUrl: url, host });
            await session.observe();
            openMs.push(performance.now() - start);
            return session;
          }),
        );
        sessions.push(...batch);
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const rss = treeRssBytes();
      const pss = treePssBytes();
      rows.push([`${count} sessions: RSS (node + Chromium) / session`, `${(rss / count / MB).toFixed(1)} MB (total ${(rss / MB).toFixed(0)} MB; node before the browser ${(baseRss / MB).toFixed(0)} MB)`]);
      rows.push([`${count} sessions: PSS (node + Chromium) / session`, `${(pss / count / MB).toFixed(1)} MB (total ${(pss / MB).toFixed(0)} MB)`]);
      rows.push([`${count} sessions: open + first observe, p50 / p95`, `${percentile(openMs, 50).toFixed(0)} / ${percentile(openMs, 95).toFixed(0)} ms`]);

      const observeMs: number[] = [];
      const clickMs: number[] = [];
      for (let s = 0; s < steps; s++) {
        const [o, c] = await step(sessions[s % sessions.length]!, (tree) => site.link(tree));
        observeMs.push(o);
        clickMs.push(c);
      }
      rows.push([`${count} sessions: observe, sequential, p50 / p95`, `${percentile(observeMs, 50).toFixed(0)} / ${percentile(observeMs, 95).toFixed(0)} ms`]);
      rows.push([`${count} sessions: click (navigates), sequential, p50 / p95`, `${percentile(clickMs, 50).toFixed(0)} / ${percentile(clickMs, 95).toFixed(0)} ms`]);

      const start = performance.now();
      const rounds = 3;
      let failures = 0;
      await Promise.all(sessions.map(async (session) => {
        for (let r = 0; r < rounds; r++) if (!(await step(session, (tree) => site.link(tree)))[2]) failures++;
      }));
      const seconds = (performance.now() - start) / 1000;
      // Each step() is four env steps: observe+click, observe+go_back.
      rows.push([`${count} sessions: all stepping at once`, `${((count * rounds * 2) / seconds).toFixed(1)} (observe + action) steps/s; ${failures} of ${count * rounds} clicks failed or timed out`]);
      await Promise.all(sessions.map((s) => s.close()));
      await host.close();
    }
  } finally {
    await site.close();
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`page: ${page}; ${new Date().toISOString().slice(0, 10)}; ${(await import('node:os')).cpus().length} cores`);
  for (const [key, value] of rows) console.log(`${key.padEnd(width)}  ${value}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const counts = (process.argv[2] ?? '16,32').split(',').map(Number);
  await runWebBrowserBench(counts, process.argv[3] ?? 'shop', Number(process.argv[4] ?? 40));
}
