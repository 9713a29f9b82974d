/**
 * A server process's outbound memory, per peer and in total (`--max-buffered-bytes`: one budget
 * for the whole process, shared by the env server's WebSocket peers and the AgentGym HTTP port's
 * sockets under `actorgym serve`; the learner server has its own). Replies queue in a peer's socket
 * while it does not read; one peer is capped at `perPeer` bytes, and all together at `total`:
 * past the total, a peer holding more than its share (total / peers) is closed, so several peers
 * that never read cannot together grow the server without bound.
 *
 * Before any of that, a peer with replies waiting is not served (`blocked`, issue 40: peers that
 * never read had pushed the process to 534–1,078 MiB against a 128 MiB total): its frames wait
 * for its socket to drain, and it is closed only if it still passes the limits above.
 *
 * The sum is kept incrementally (each peer's last known `bufferedAmount`, refreshed at every
 * send) and recounted exactly only when it passes the total: queues also shrink while nothing is
 * sent, so the running sum may be high, never low.
 */
/** A peer is never held back for less than this: socket writes return false from 16 KiB, so its `drain` will come. */
const MIN_PAUSE_BYTES = 64 * 1024;

export interface OutboundPeer {
  /** Reply bytes waiting for this peer now (a WebSocket's `bufferedAmount`, a socket's `writableLength`). */
  readonly buffered: () => number;
  /** This peer's `bufferedAmount` as last seen. */
  accounted: number;
}

export class OutboundBudget {
  private readonly peers = new Set<OutboundPeer>();
  private sum = 0;
  private highest = 0;

  constructor(
    readonly perPeer: number,
    readonly total: number,
    /** Bytes waiting for one peer past which its frames stop running (`blocked`). */
    readonly pauseAt: number = perPeer,
  ) {}

  /** Bytes queued for all peers, as last seen. */
  get bytes(): number {
    return this.sum;
  }

  /** The most `bytes` has been since start. */
  get peak(): number {
    return this.highest;
  }

  /** Peers open now. */
  get size(): number {
    return this.peers.size;
  }

  add(buffered: () => number): OutboundPeer {
    const peer = { buffered, accounted: 0 };
    this.peers.add(peer);
    return peer;
  }

  remove(peer: OutboundPeer): void {
    if (this.peers.delete(peer)) this.sum -= peer.accounted;
  }

  /** Why `peer` must be closed instead of being sent another frame, or undefined when it may be. */
  overLimit(peer: OutboundPeer): string | undefined {
    const amount = this.update(peer);
    if (amount > this.perPeer) return 'peer too slow: outbound buffer over limit';
    if (this.sum <= this.total) return undefined;
    this.recount();
    if (this.sum > this.total && amount > this.total / this.peers.size) {
      return "peer too slow: over its share of the server's outbound buffer";
    }
    return undefined;
  }

  /**
   * True while `peer` should not be served: more than `pauseAt` bytes (or its share of the
   * total, if smaller, but never under 64 KiB) wait for it. Its frames then wait for its socket
   * to drain, so the sum over peers stays near the total instead of reaching it.
   */
  blocked(peer: OutboundPeer): boolean {
    const amount = this.update(peer);
    return amount > Math.max(MIN_PAUSE_BYTES, Math.min(this.pauseAt, this.total / Math.max(1, this.peers.size)));
  }

  /** Call after a send, so the sum holds the frame just queued. */
  sent(peer: OutboundPeer): void {
    this.update(peer);
  }

  private update(peer: OutboundPeer): number {
    const amount = peer.buffered();
    this.sum += amount - peer.accounted;
    peer.accounted = amount;
    if (this.sum > this.highest) this.highest = this.sum;
    return amount;
  }

  private recount(): void {
    for (const peer of this.peers) peer.accounted = peer.buffered();
    this.sum = 0;
    for (const peer of this.peers) this.sum += peer.accounted;
  }
}
