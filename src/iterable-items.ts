/**
 * The array methods the run reports read orders with (map, filter, find, ...), for a sequence that is
 * not an array: one built item by item as it is read, or kept on disk. A subclass gives its length and
 * its iterator; each method walks the iterator once and stops as early as the method allows.
 */
export abstract class IterableItems<T> implements Iterable<T> {
  abstract readonly length: number;
  abstract [Symbol.iterator](): Iterator<T>;

  forEach(fn: (item: T, index: number) => void): void {
    let i = 0;
    for (const item of this) fn(item, i++);
  }

  map<U>(fn: (item: T, index: number) => U): U[] {
    const out: U[] = [];
    this.forEach((item, i) => out.push(fn(item, i)));
    return out;
  }

  flatMap<U>(fn: (item: T, index: number) => U | readonly U[]): U[] {
    const out: U[] = [];
    this.forEach((item, i) => {
      const value = fn(item, i);
      if (Array.isArray(value)) out.push(...(value as U[]));
      else out.push(value as U);
    });
    return out;
  }

  filter(fn: (item: T, index: number) => boolean): T[] {
    const out: T[] = [];
    this.forEach((item, i) => {
      if (fn(item, i)) out.push(item);
    });
    return out;
  }

  find(fn: (item: T, index: number) => boolean): T | undefined {
    let i = 0;
    for (const item of this) if (fn(item, i++)) return item;
    return undefined;
  }

  some(fn: (item: T, index: number) => boolean): boolean {
    let i = 0;
    for (const item of this) if (fn(item, i++)) return true;
    return false;
  }

  every(fn: (item: T, index: number) => boolean): boolean {
    return !this.some((item, i) => !fn(item, i));
  }

  slice(start = 0, end = this.length): T[] {
    const out: T[] = [];
    let i = 0;
    for (const item of this) {
      if (i >= end) break;
      if (i++ >= start) out.push(item);
    }
    return out;
  }
}
