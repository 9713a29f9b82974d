/**
 * The run's events so far, for subscribers that connect late: a bounded log of encoded events in
 * the order the run emitted them. Past `maxBytes` it evicts, oldest first, the high-rate (lossy)
 * events, and only when none is left the lossless ones; the stream's first event (`run.started`
 * of a rollout, `training.started` of a training run) is never evicted, since it says what the
 * run is. What was evicted is counted per type, so a late subscriber learns what it missed.
 */
import { Fifo } from './fifo.ts';

export interface ReplayEntry {
  /** Position in the run's stream, from 0: replay and live delivery are ordered by it. */
  readonly seq: number;
  readonly type: string;
  /** The encoded `event` frame. */
  readonly text: string;
  readonly bytes: number;
  readonly lossy: boolean;
}

export interface ReplayStats {
  /** Events held now, and their encoded bytes. */
  readonly events: number;
  readonly bytes: number;
  /** Events evicted since the start, lossy and lossless. */
  readonly evictedLossy: number;
  readonly evictedLossless: number;
}

export class ReplayLog {
  private first: ReplayEntry | undefined;
  private readonly lossless = new Fifo<ReplayEntry>();
  private readonly lossy = new Fifo<ReplayEntry>();
  private bytes = 0;
  private evictedLossy = 0;
  private evictedLossless = 0;
  private readonly evictedByType = new Map<string, number>();

  constructor(private readonly maxBytes: number) {}

  append(entry: ReplayEntry): void {
    this.bytes += entry.bytes;
    if (this.first === undefined) this.first = entry;
    else (entry.lossy ? this.lossy : this.lossless).push(entry);
    while (this.bytes > this.maxBytes && this.evictOne());
  }

  /** The held events a subscriber to `types` (all when undefined) gets, in stream order. */
  snapshot(types: ReadonlySet<string> | undefined): ReplayEntry[] {
    const wanted = (entry: ReplayEntry) => types === undefined || types.has(entry.type);
    const lossless = this.lossless.toArray().filter(wanted);
    const lossy = this.lossy.toArray().filter(wanted);
    const merged: ReplayEntry[] = this.first !== undefined && wanted(this.first) ? [this.first] : [];
    let i = 0;
    let j = 0;
    while (i < lossless.length || j < lossy.length) {
      const a = lossless[i];
      const b = lossy[j];
      if (b === undefined || (a !== undefined && a.seq < b.seq)) {
        merged.push(a as ReplayEntry);
        i++;
      } else {
        merged.push(b);
        j++;
      }
    }
    return merged;
  }

  /** Events of `types` (all when undefined) no longer held. */
  missed(types: ReadonlySet<string> | undefined): number {
    let missed = 0;
    for (const [type, count] of this.evictedByType) if (types === undefined || types.has(type)) missed += count;
    return missed;
  }

  stats(): ReplayStats {
    const events = (this.first ? 1 : 0) + this.lossless.size + this.lossy.size;
    return { events, bytes: this.bytes, evictedLossy: this.evictedLossy, evictedLossless: this.evictedLossless };
  }

  private evictOne(): boolean {
    const entry = this.lossy.shift() ?? this.lossless.shift();
    if (entry === undefined) return false;
    this.bytes -= entry.bytes;
    if (entry.lossy) this.evictedLossy++;
    else this.evictedLossless++;
    this.evictedByType.set(entry.type, (this.evictedByType.get(entry.type) ?? 0) + 1);
    return true;
  }
}
