/**
 * Every customerOrderId of a sheet and the order it names, in a few bytes an order instead of a Map of strings:
 * the IDs back to back as UTF-8 in one buffer, and an open-addressing hash table of 32-bit hashes pointing at
 * order numbers. A lookup compares the ID itself only on a hash hit. Three million orders cost about 60 MB
 * (a Map of strings would take several times that, walked by every garbage collection).
 */
import { Buffer } from 'node:buffer';

export class OrderIds {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** Where each order's ID starts in `bytes` (and ends: the next one's start); -1 for an order without an ID. */
  private starts = new Float64Array(1024);
  private ends = new Float64Array(1024);
  private count = 0;
  /** Slots: order number + 1 (0 = empty), and the hash of that order's ID. */
  private slots = new Int32Array(2048);
  private hashes = new Int32Array(2048);
  private filled = 0;

  /** Orders numbered so far. */
  get size(): number {
    return this.count;
  }

  /** Numbers the next order; `id` null for a row without an order ID (never found by find()). */
  add(id: string | null): number {
    const order = this.count++;
    if (order === this.starts.length) {
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
    }
    if (id === null) {
      this.starts[order] = -1;
      this.ends[order] = -1;
      return order;
    }
    const length = Buffer.byteLength(id, 'utf8');
    if (this.used + length > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + length));
      this.bytes.copy(bigger, 0, 0, this.used);
      this.bytes = bigger;
    }
    this.starts[order] = this.used;
    this.used += this.bytes.write(id, this.used, 'utf8');
    this.ends[order] = this.used;
    if ((this.filled + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    this.place(order, hashOf(id));
    this.filled++;
    return order;
  }

  /** The order named `id`, or -1. */
  find(id: string): number {
    const hash = hashOf(id);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return -1;
      if (this.hashes[slot] === hash && this.idOf(entry - 1) === id) return entry - 1;
    }
  }

  /** The ID of an order (null for an order without one). */
  idOf(order: number): string | null {
    const start = this.starts[order]!;
    return start < 0 ? null : this.bytes.toString('utf8', start, this.ends[order]!);
  }

  private place(order: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = order + 1;
    this.hashes[slot] = hash;
  }

  private rehash(size: number): void {
    const { slots, hashes } = this;
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    for (let s = 0; s < slots.length; s++) if (slots[s] !== 0) this.place(slots[s]! - 1, hashes[s]!);
  }
}

/** FNV-1a over the UTF-16 code units, 32 bits. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash;
}

function grow(array: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(array.length * 2);
  grown.set(array);
  return grown;
}
