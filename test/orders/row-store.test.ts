import { describe, expect, it } from 'vitest';
import { decodeRow, encodeRow } from '../../src/orders/row-encoding.js';
import { CompactRowStore } from '../../src/orders/row-store.js';
import type { CellValue } from '../../src/sheet/types.js';

describe('encodeRow', () => {
  it('round-trips text, numbers, booleans and dates, with empty cells as empty text', () => {
    const cells: CellValue[] = ['SO-1', 12.5, true, false, new Date(Date.UTC(2026, 10, 20, 14, 30)), null, '', 'Zoë 東京', -0.1];
    expect(decodeRow(encodeRow(cells)!)).toEqual(['SO-1', 12.5, true, false, new Date(Date.UTC(2026, 10, 20, 14, 30)), '', '', 'Zoë 東京', -0.1]);
  });

  it('refuses a cell holding the separator or starting like a tag', () => {
    expect(encodeRow(['a\u001fb'])).toBeNull();
    expect(encodeRow(['\u0001 looks like a number tag'])).toBeNull();
    expect(encodeRow([])).toBeNull();
  });
});

describe('CompactRowStore', () => {
  const shared = [0, 1];
  // Some chunks hold a character beyond Latin-1 (stored two bytes each), others do not.
  const row = (i: number, order: number): CellValue[] => [`SO-${order}`, `Name ${order}`, i % 1_500 === 7 ? `line ${i} 東京` : `line ${i} é`, i];

  it.each([
    ['in memory', {}],
    ['with all but the last chunk on disk', { memoryBytes: 1 }],
    ['on disk in chunks of 7 rows', { memoryBytes: 0, chunkRows: 7 }],
  ])('gives back many rows, across chunks, by index, by row number and in order (%s)', (_, options) => {
    const store = new CompactRowStore({ sharedColumns: shared, width: 4, ...options });
    const expected: CellValue[][] = [];
    for (let i = 0; i < 2_500; i++) {
      const order = Math.floor(i / 3);
      const cells = row(i, order);
      expected.push(cells);
      store.push(10 + i * 2, cells, i % 3 !== 0);
    }
    expect(store.size).toBe(2_500);
    expect(store.cellsAt(0)).toEqual(expected[0]);
    expect(store.cellsAt(1_024)).toEqual(expected[1_024]);
    expect(store.cellsOf(10 + 2 * 2_499)).toEqual(expected[2_499]);
    expect(store.cellsOf(11)).toEqual([]);
    expect(store.indexOf(10 + 2 * 1_500)).toBe(1_500);
    expect([...store].map((r) => r.cells)).toEqual(expected);
    expect([...store].map((r) => r.rowNumber).slice(0, 3)).toEqual([10, 12, 14]);
    // Read back out of order, far apart: each row from its own chunk, wherever that is.
    for (let i = 2_499; i >= 0; i -= 97) expect(store.cellsAt(i)).toEqual(expected[i]);
    expect(store.spilledBytes > 0).toBe('memoryBytes' in options);
    store.close();
    expect(store.size).toBe(0);
  });

  it('cuts rows of thousands of cells into chunks by size, on disk past the window, read back in any order', () => {
    const store = new CompactRowStore({ sharedColumns: shared, width: 5_000, memoryBytes: 1024 * 1024 });
    const wide = (i: number): CellValue[] => Array.from({ length: 5_000 }, (_, k) => (k === 0 ? `SO-${i}` : i * 10_000 + k));
    for (let i = 0; i < 300; i++) store.push(i + 2, wide(i));
    expect(store.spilledBytes).toBeGreaterThan(10 * 1024 * 1024);
    for (const i of [299, 0, 150, 151, 7]) expect(store.cellsAt(i)).toEqual(wide(i));
    expect([...store].map((r) => r.rowNumber)).toEqual(Array.from({ length: 300 }, (_, i) => i + 2));
  });

  it('keeps a row whole when it cannot be encoded, and rows repeating it still read right', () => {
    const store = new CompactRowStore({ sharedColumns: shared, width: 4 });
    store.push(2, ['SO-1', 'a\u001fb', 'x', 1]);
    store.push(3, ['SO-1', 'a\u001fb', 'y', 2], true);
    store.push(4, ['SO-1', 'a\u001fb', 'z\u001f', 3], true);
    expect([...store].map((r) => r.cells)).toEqual([
      ['SO-1', 'a\u001fb', 'x', 1],
      ['SO-1', 'a\u001fb', 'y', 2],
      ['SO-1', 'a\u001fb', 'z\u001f', 3],
    ]);
  });

  it('hands out copies: changing returned cells does not change the store', () => {
    const store = new CompactRowStore({ sharedColumns: shared, width: 4 });
    store.push(2, ['SO-1', 'a\u001fb', 'x', 1]);
    store.cellsAt(0)[2] = 'changed';
    expect(store.cellsAt(0)[2]).toBe('x');
  });

  it.each([
    ['in memory', {}],
    ['on disk in chunks of 2 rows', { memoryBytes: 0, chunkRows: 2 }],
  ])('gives a row kept as its line back as it, and rows repeating its cells read right (%s)', (_, options) => {
    const store = new CompactRowStore({ sharedColumns: shared, width: 4, ...options });
    store.push(2, ['SO-1', 'Zoë', 'a\u001fb', '1'], false, 'SO-1,Zoë,a\u001fb,1');
    store.push(3, ['SO-1', 'Zoë', 'y, z', '2'], true);
    store.push(4, ['SO-1', 'Zoë', '東京', '3'], true, 'SO-1,Zoë,東京,3');
    store.push(5, ['SO-2', 'n', 'w', '4', 'extra'], false, 'SO-2,n,w,4,extra');
    expect([...store].map((r) => r.cells)).toEqual([
      ['SO-1', 'Zoë', 'a\u001fb', '1'],
      ['SO-1', 'Zoë', 'y, z', '2'],
      ['SO-1', 'Zoë', '東京', '3'],
      ['SO-2', 'n', 'w', '4', 'extra'],
    ]);
    // A line is only kept for a row of the sheet's width: the result file writes those.
    expect([...store.asKept()].map((r) => r.line)).toEqual(['SO-1,Zoë,a\u001fb,1', null, 'SO-1,Zoë,東京,3', null]);
    expect(store.cellsOf(3)).toEqual(['SO-1', 'Zoë', 'y, z', '2']);
    expect(store.cellsOf(4)).toEqual(['SO-1', 'Zoë', '東京', '3']);
  });

  it.each([
    ['in memory', {}],
    ['on disk in chunks of 2 rows', { memoryBytes: 0, chunkRows: 2 }],
  ])('gives a whole row of numbers and text back with the line the result CSV writes, and its typed cells when asked (%s)', (_, options) => {
    const store = new CompactRowStore({ width: 4, ...options });
    store.push(2, ['SO-1', 12.5, null, -3]);
    store.push(3, ['SO-2', 1e21, 'Zoë 東京', 0.1]);
    store.push(4, ['SO-3', 'a, b', 1, 2]);
    store.push(5, ['SO-4', true, 1, 2]);
    store.push(6, ['SO-5', new Date(Date.UTC(2026, 0, 2)), 1, 2]);
    store.push(7, ['SO-6', 'a\u0001b', 1, 2]);
    store.push(8, ['SO-7', 1, 2]);
    const kept = [...store.asKept()];
    expect(kept.map((r) => r.line)).toEqual(['SO-1,12.5,,-3', 'SO-2,1e+21,Zoë 東京,0.1', null, null, null, null, null]);
    expect(kept.slice(0, 2).map((r) => (r.cells === null ? r.typedCells?.() : r.cells))).toEqual([
      ['SO-1', 12.5, '', -3],
      ['SO-2', 1e21, 'Zoë 東京', 0.1],
    ]);
    expect([...store].map((r) => r.cells)).toEqual([
      ['SO-1', 12.5, '', -3],
      ['SO-2', 1e21, 'Zoë 東京', 0.1],
      ['SO-3', 'a, b', 1, 2],
      ['SO-4', true, 1, 2],
      ['SO-5', new Date(Date.UTC(2026, 0, 2)), 1, 2],
      ['SO-6', 'a\u0001b', 1, 2],
      ['SO-7', 1, 2],
    ]);
  });

  it('keeps rows of another width whole', () => {
    const store = new CompactRowStore({ sharedColumns: shared, width: 4 });
    store.push(2, ['SO-1', 'n', 'x', 1]);
    store.push(3, ['SO-1', 'n', 'y', 2, 'extra'], true);
    store.push(4, ['SO-1', 'n', 'z', 3], true);
    expect([...store].map((r) => r.cells)).toEqual([
      ['SO-1', 'n', 'x', 1],
      ['SO-1', 'n', 'y', 2, 'extra'],
      ['SO-1', 'n', 'z', 3],
    ]);
  });
});
