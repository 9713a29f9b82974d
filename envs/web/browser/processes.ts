/**
 * This process's descendants and their resident memory, read from /proc (Linux only), for
 * measuring what the shared browser costs per env instance and for killing it in crash tests.
 * Playwright's `launch` does not expose the browser's pid, so we find Chromium by parentage.
 */
import { readFileSync, readdirSync } from 'node:fs';

interface ProcInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces; the fields after the last ')' are plain.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { pid, ppid, comm };
  } catch {
    return undefined;
  }
}

/** Every process below `root` (children, grandchildren, ...). */
export function descendants(root: number = process.pid): ProcInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((info): info is ProcInfo => info !== undefined);
  const found: ProcInfo[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const info of all) {
      if (parents.has(info.ppid) && !parents.has(info.pid)) {
        parents.add(info.pid);
        found.push(info);
        grew = true;
      }
    }
  }
  return found;
}

/** Chromium browser processes started by this process (their direct children are renderers etc.). */
export function chromiumBrowserPids(root: number = process.pid): number[] {
  return descendants(root)
    .filter((info) => info.ppid === root && /chrom/i.test(info.comm))
    .map((info) => info.pid);
}

/** A `kB` field of a /proc file of `pid`, in bytes (0 when the process is gone). */
function procKbField(pid: number, file: string, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `perPid` summed over `root` and all its descendants. */
function treeSum(root: number, perPid: (pid: number) => number): number {
  return perPid(root) + descendants(root).reduce((sum, info) => sum + perPid(info.pid), 0);
}

/** Resident set size of `pid` in bytes (0 when it is gone). */
export function rssBytes(pid: number): number {
  return procKbField(pid, 'status', 'VmRSS');
}

/** RSS of this process plus all its descendants, in bytes. */
export function treeRssBytes(root: number = process.pid): number {
  return treeSum(root, rssBytes);
}

/** Proportional set size of `pid` in bytes (shared pages split among their users; 0 when gone). */
export function pssBytes(pid: number): number {
  return procKbField(pid, 'smaps_rollup', 'Pss');
}

/** PSS of this process plus all its descendants, in bytes: no shared page counted twice. */
export function treePssBytes(root: number = process.pid): number {
  return treeSum(root, pssBytes);
}
