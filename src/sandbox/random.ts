/**
 * Seeded randomness. Everything the sandbox invents (fulfillment centers picked, packages split,
 * tracking numbers, faults) comes from these, so a seed replays the same world.
 */

/** A 53-bit hash of text (cyrb53): stable across runs and platforms, good enough to key a PRNG. */
export function hashText(text: string, salt = 0): number {
  let h1 = 0xdeadbeef ^ salt;
  let h2 = 0x41c6ce57 ^ salt;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A string of `length` decimal digits. */
  digits(length: number): string;
}

/** mulberry32: tiny, fast and plenty for simulation (not for secrets). */
export function createRng(seed: number): Rng {
  let state = (seed >>> 0) ^ Math.floor(seed / 4294967296);
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => p > 0 && next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    digits: (length) => {
      let out = '';
      for (let i = 0; i < length; i++) out += String(Math.floor(next() * 10));
      return out;
    },
  };
}

/** The PRNG for one named thing under a seed, e.g. (seed, customerOrderId): independent of request order. */
export function rngFor(seed: number, key: string): Rng {
  return createRng(hashText(key, seed | 0));
}
