import { describe, expect, it } from 'vitest';
import { packRows, splitRows } from '../../src/sheet/csv-transport.js';

describe('the rows message between the parse worker and the main thread', () => {
  const rows = [['SO-1', 'Mug', ''], ['Zoë', '東京', '😀'], ['a\u001fb', 'c', ''], ['', '', ''], ['"q"', '=1', 'x,y'], ['one']];
  const numbers = [2, 3, 5, 6, 9, 10];

  it('gives back every row with its number, a cell holding the unit separator included', () => {
    const message = packRows(rows, numbers, 123);
    expect(message.asIs.map(([k]) => k)).toEqual([2]);
    expect(message.bytesRead).toBe(123);
    expect(splitRows(message)).toEqual(rows.map((cells, k) => ({ rowNumber: numbers[k], cells })));
  });

  it('sends every row as joined text when the file holds no unit separator', () => {
    const plain = rows.filter((cells) => !cells[0]!.includes('\u001f'));
    const message = packRows(plain, numbers.slice(0, plain.length), 0, false);
    expect(message.asIs).toEqual([]);
    expect(splitRows(message).map((r) => r.cells)).toEqual(plain);
  });

  it('carries an empty batch', () => {
    expect(splitRows(packRows([], [], 0))).toEqual([]);
  });
});
