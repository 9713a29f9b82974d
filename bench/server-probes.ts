/** What the flood benchmarks read from a server under attack: `/readyz` latency and the process's memory. */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

/** A process's resident memory now and at its peak (MiB), from /proc. */
export function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** GET /readyz with a deadline: its latency (ms), or undefined when unanswered within `timeoutMs`. */
export function probeReadyz(wsUrl: string, timeoutMs = 2_000): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${wsUrl.replace('ws:', 'http:')}/readyz`, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === 200 ? performance.now() - started : undefined));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(undefined));
    req.end();
  });
}
