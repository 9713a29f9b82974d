/**
 * Removing the temp and trash folders that dead writers left next to a checkpoint
 * (`<dir>.tmp-PID`, `<dir>.trash-PID`: write.ts). A folder is stale when no process with its PID
 * runs; the folders of live processes (another run writing into the same directory, or this
 * process) are left alone. A PID reused by an unrelated process after a reboot keeps its folder
 * until that process ends: harmless, the reader never looks at these folders.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const SIBLING = /^(?<base>.+)\.(?:tmp|trash)-(?<pid>\d+)$/;

/** Whether a process with this PID exists (EPERM: it does, owned by someone else). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes the stale temp and trash folders of the checkpoint at `dir`; returns the paths removed.
 * A missing parent folder is nothing to clean.
 */
export function removeStaleCheckpointTemps(dir: string, alive: (pid: number) => boolean = processAlive): string[] {
  const target = path.resolve(dir);
  const parent = path.dirname(target);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = SIBLING.exec(name);
    if (match?.groups?.base !== path.basename(target) || alive(Number(match.groups.pid))) continue;
    const stale = path.join(parent, name);
    rmSync(stale, { recursive: true, force: true });
    removed.push(stale);
  }
  return removed;
}
