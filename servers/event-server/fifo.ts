/**
 * A first-in first-out queue with O(1) push and shift: `Array#shift` is O(n), and the replay log
 * and a subscriber's backlog shift from queues of up to hundreds of thousands of events.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.items[this.head] = undefined as T; // let the shifted item be collected before compaction
    this.head++;
    // Compact once the dead prefix is both large and most of the array: amortised O(1).
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** The queued items, oldest first (a copy). */
  toArray(): T[] {
    return this.items.slice(this.head);
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
