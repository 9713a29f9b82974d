/**
 * The run's events so far, for subscribers that connect late or come back: a bounded log of
 * encoded events in the order the run emitted them. Past `maxBytes` it evicts, oldest first, the
 * high-rate (lossy) events, and only when none is left the lossless ones; the stream's first
 * event (`run.started` of a rollout, `training.started` of a training run) is never evicted,
 * since it says what the run is.
 *
 * Evicted lossless events are remembered by position (8 bytes each, against the hundreds each
 * one held), so a subscriber learns exactly how many it will not get; evicted lossy events are
 * only counted, as subscribers may miss those live too.
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
  /** Positions of the evicted lossless events, by type, ascending. */
  private readonly evictedSeqs = new Map<string, number[]>();

  constructor(private readonly maxBytes: number) {}

  append(entry: ReplayEntry): void {
    this.bytes += entry.bytes;
    if (this.first === undefined) this.first = entry;
    else (entry.lossy ? this.lossy : this.lossless).push(entry);
    while (this.bytes > this.maxBytes && this.evictOne());
  }

  /**
   * The held events a subscriber to `types` (all when undefined) gets, in stream order, from
   * position `after + 1` on (all when `after` is undefined).
   */
  snapshot(types: ReadonlySet<string> | undefined, after = -1): ReplayEntry[] {
    const wanted = (entry: ReplayEntry) => entry.seq > after && (types === undefined || types.has(entry.type));
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

  /** Lossless events of `types` (all when undefined) after position `after` that are no longer held. */
  missed(types: ReadonlySet<string> | undefined, after = -1): number {
    let missed = 0;
    for (const [type, seqs] of this.evictedSeqs) {
      if (types === undefined || types.has(type)) missed += seqs.length - firstAbove(seqs, after);
    }
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
    else {
      this.evictedLossless++;
      const seqs = this.evictedSeqs.get(entry.type);
      if (seqs) seqs.push(entry.seq);
      else this.evictedSeqs.set(entry.type, [entry.seq]);
    }
    return true;
  }
}

/** Index of the first element of ascending `seqs` above `after`. */
function firstAbove(seqs: readonly number[], after: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((seqs[mid] as number) > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
