import { describe, expect, it } from 'vitest';
import { CsvCellText, packOddRows, splitRows, type RowsMessage } from '../../src/sheet/csv-cell-text.js';

/** A `rows` message as the parse worker posts it, for lines already written as result-CSV text. */
function message(lines: string[], odd: [number, string[]][] = []): RowsMessage {
  const ends = new Int32Array(lines.length);
  let total = 0;
  lines.forEach((line, k) => (ends[k] = total += line.length));
  const text = lines.join('');
  return { type: 'rows', rowNumbers: Int32Array.from(lines, (_, k) => k + 2), header: null, text, ends, ...packOddRows(odd), bytesRead: 0 };
}

describe('CsvCellText', () => {
  it('reads plain rows back from their text in any order, across batches, with non-ASCII text', () => {
    const text = new CsvCellText();
    text.addBatch(message(['a,b,c', 'Zoë,東京,', '"x,y",z,w'], [[2, ['x,y', 'z', 'w']]]));
    text.addBatch(message([]));
    text.addBatch(message(['d,e,f', ',,😀']));
    expect(text.rows).toBe(5);
    expect([4, 0, 2, 1, 3].map((row) => text.isPlain(row))).toEqual([true, true, false, true, true]);
    expect(text.plainCellsAt(4)).toEqual(['', '', '😀']);
    expect(text.plainCellsAt(1)).toEqual(['Zoë', '東京', '']);
    expect(text.plainCellsAt(3)).toEqual(['d', 'e', 'f']);
    expect(text.plainCellsAt(0)).toEqual(['a', 'b', 'c']);
    expect(text.isPlain(5)).toBe(false);
    expect([...text.batches()].map((b) => b.bytes.toString('utf8'))).toEqual(['a,b,cZoë,東京,"x,y",z,w', 'd,e,f,,😀']);
  });

  it('splits a batch into rows, odd rows from their cells, a cell holding the unit separator included', () => {
    const odd: [number, string[]][] = [[0, ['x,y', '', 'z']], [2, ['a\u001fb', 'c', '']], [3, ['', '', '']], [4, ['"q"', '=1', 'w']]];
    const rows = splitRows(message(['"x,y",,z', 'd,e,f', '"a\u001fb",c,', ',,', '"""q""","\'=1",w'], odd));
    expect(rows).toEqual([
      { rowNumber: 2, cells: ['x,y', '', 'z'] },
      { rowNumber: 3, cells: ['d', 'e', 'f'] },
      { rowNumber: 4, cells: ['a\u001fb', 'c', ''] },
      { rowNumber: 5, cells: ['', '', ''] },
      { rowNumber: 6, cells: ['"q"', '=1', 'w'] },
    ]);
  });
});
