/**
 * The env server's outbound memory, per peer and in total. Replies queue in a peer's socket
 * while it does not read; one peer is capped at `perPeer` bytes, and all together at `total`:
 * past the total, a peer holding more than its share (total / peers) is closed, so several peers
 * that never read cannot together grow the server without bound.
 *
 * The sum is kept incrementally (each peer's last known `bufferedAmount`, refreshed at every
 * send) and recounted exactly only when it passes the total: queues also shrink while nothing is
 * sent, so the running sum may be high, never low.
 */
import type { WebSocket } from 'ws';

export interface OutboundPeer {
  readonly ws: WebSocket;
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
  ) {}

  /** Bytes queued for all peers, as last seen. */
  get bytes(): number {
    return this.sum;
  }

  /** The most `bytes` has been since start. */
  get peak(): number {
    return this.highest;
  }

  add(ws: WebSocket): OutboundPeer {
    const peer = { ws, accounted: 0 };
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

  /** Call after a send, so the sum holds the frame just queued. */
  sent(peer: OutboundPeer): void {
    this.update(peer);
  }

  private update(peer: OutboundPeer): number {
    const amount = peer.ws.bufferedAmount;
    this.sum += amount - peer.accounted;
    peer.accounted = amount;
    if (this.sum > this.highest) this.highest = this.sum;
    return amount;
  }

  private recount(): void {
    for (const peer of this.peers) peer.accounted = peer.ws.bufferedAmount;
    this.sum = 0;
    for (const peer of this.peers) this.sum += peer.accounted;
  }
}
