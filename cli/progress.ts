/**
 * A progress bar for runs, fed by the run's event stream. Drawn on stderr only when it is a
 * terminal, so `--json` output and logs stay clean.
 */
import { SingleBar } from 'cli-progress';
import type { Observable, Subscription } from 'rxjs';
import type { RunEvent } from '../streams/events.ts';

export function showRunProgress(
  events: Observable<RunEvent>,
  total: number,
  _maxRetries: number,
  enabled: boolean,
): Subscription | undefined {
  if (!enabled || !process.stderr.isTTY) return undefined;
  const bar = new SingleBar({
    stream: process.stderr,
    format: ' {bar} {value}/{total} scored | success {success} | aborted {aborted} | ETA {eta_formatted}',
    hideCursor: true,
    clearOnComplete: true,
  });
  let success = 0;
  let aborted = 0;
  // Slots with a scored outcome. An aborted attempt may be retried (--max-retries, and again on
  // another server when its server was lost), so only a scored finish settles a slot for sure.
  const scored = new Set<number>();
  bar.start(total, 0, { success: '-', aborted: 0 });
  return events.subscribe({
    next: (event) => {
      if (event.type !== 'episode.finished') return;
      if (event.outcome === 'aborted') aborted += 1;
      else if (event.outcome === 'success') success += 1;
      if (event.outcome !== 'aborted') scored.add(event.slot);
      bar.update(Math.min(scored.size, total), { success, aborted });
    },
    complete: () => bar.stop(),
    error: () => bar.stop(),
  });
}
