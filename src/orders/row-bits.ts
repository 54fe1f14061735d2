/** Growable per-row bookkeeping of the row store (row-store.ts): an Int32Array per row, a bit per row. */

export function setBit(bits: Uint8Array, index: number): void {
  bits[index >>> 3] = bits[index >>> 3]! | (1 << (index & 7));
}

export function hasBit(bits: Uint8Array, index: number): boolean {
  return (bits[index >>> 3]! & (1 << (index & 7))) !== 0;
}

export function growBits(bits: Uint8Array, rows: number): Uint8Array<ArrayBuffer> {
  const grown = new Uint8Array(rows / 8);
  grown.set(bits);
  return grown;
}

export function growRows(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}
