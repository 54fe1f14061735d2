/**
 * A UTF-8 CSV with rows pasted from a Windows-1252 file: each line is decoded by what it is, in one read chunk or
 * across many (64 KB on the main thread, 256 KB on the parse worker), and the windows-1252 rows are named.
 * The worker test runs the compiled worker: `npm run build` first (or CLI_DIST=<a private build>).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import { createChunkDecoder } from '../../src/sheet/text-decode.js';
import { readAll, useTempDir } from './support.js';

const fixture = useTempDir();
const MAIN: OpenSheetOptions = { workerMinBytes: Number.POSITIVE_INFINITY };
const WORKER: OpenSheetOptions = { workerMinBytes: 0, workerUrl: pathToFileURL(resolve(process.env.CLI_DIST ?? 'dist', 'sheet/csv-parse-worker.js')) };
/** The read sizes of read-csv.ts and csv-parse-worker.ts. */
const MAIN_CHUNK = 64 * 1024;
const WORKER_CHUNK = 256 * 1024;

const H = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax';
const row = (id: string, name: string, address = '1 Main St'): string =>
  `${id},2031-04-28,OtherMarketplace,${name},${address},Boston,MA,02134,US,+1 617 555 0100,PRD-1,1,Mug,1,9.50,0\r\n`;
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
/** Windows-1252 bytes of text whose characters are all in Latin-1 (ü is 0xFC either way). */
const cp1252 = (text: string): Buffer => Buffer.from(text, 'latin1');

function namesOf(rows: { cells: unknown[] }[]): unknown[] {
  return rows.map((r) => r.cells[3]);
}

describe('a UTF-8 CSV with a pasted Windows-1252 row', () => {
  it('keeps the UTF-8 rows of a small file (one read) and reads the pasted row as Windows-1252, naming it', async () => {
    const file = fixture('mixed-small.csv', Buffer.concat([utf8(`${H}\r\n`), utf8(row('MX-1', 'José')), cp1252(row('MX-2', 'Müller'))]));
    const { sheet, rows } = await readAll(file, MAIN);
    expect(namesOf(rows)).toEqual(['José', 'Müller']);
    const issues = sheet.issues?.() ?? [];
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: 'mixed_encoding', severity: 'warning', row: 3 });
    expect(issues[0]!.message).toContain('row 3 is not UTF-8');
    expect(issues[0]!.message).toContain('Windows-1252');
  });

  it('keeps all 300 UTF-8 rows of a 301-row file with one pasted row', async () => {
    const parts = [utf8(`${H}\r\n`)];
    for (let i = 1; i <= 150; i++) parts.push(utf8(row(`U-${i}`, `Zoë ${i}`)));
    parts.push(cp1252(row('CP-1', 'Françoise Müller')));
    for (let i = 151; i <= 300; i++) parts.push(utf8(row(`U-${i}`, `Zoë ${i}`)));
    const { sheet, rows } = await readAll(fixture('mixed-301.csv', Buffer.concat(parts)), MAIN);
    expect(rows).toHaveLength(301);
    expect(rows.filter((r) => r.cells[3] === 'Françoise Müller').map((r) => r.rowNumber)).toEqual([152]);
    expect(rows.filter((r) => String(r.cells[3]).startsWith('Zoë '))).toHaveLength(300);
    expect(sheet.issues?.().map((i) => i.row)).toEqual([152]);
  });

  /**
   * Pasted rows before and after the first read boundary, one of them cut by it, after rows whose quoted
   * address holds a line break (so that file lines and row numbers differ).
   */
  function multiChunkFile(chunk: number, isEarlyPasted = true): { bytes: Buffer; pasted: Map<number, string> } {
    const parts: Buffer[] = [utf8(`${H}\r\n`)];
    let size = parts[0]!.length;
    let rowNumber = 1;
    const pasted = new Map<number, string>();
    const add = (bytes: Buffer, name?: string): void => {
      parts.push(bytes);
      size += bytes.length;
      rowNumber++;
      if (name !== undefined) pasted.set(rowNumber, name);
    };
    add(utf8(row('A-1', 'Zoë', '"1 Main St\nApt 2"')));
    if (isEarlyPasted) add(cp1252(row('P-1', 'Müller')), 'Müller');
    while (size < chunk - 300) add(utf8(row(`A-${rowNumber}`, 'José', rowNumber % 7 === 0 ? '"2 Elm St\r\nFloor 3"' : '3 Oak St')));
    // Pad so that the boundary falls inside the next pasted row, just before its ü.
    const before = `P-2,2031-04-28,OtherMarketplace,Lefèvre M`;
    const filler = chunk - size - cp1252(before).length - utf8(row('F-1', 'Ann', '')).length;
    add(utf8(row('F-1', 'Ann', 'x'.repeat(filler))));
    add(cp1252(row('P-2', 'Lefèvre Müller')), 'Lefèvre Müller');
    expect(size - cp1252(row('P-2', 'Lefèvre Müller')).length + cp1252(before).length).toBe(chunk);
    for (let i = 0; i < 200; i++) add(utf8(row(`B-${i}`, 'Søren', i % 5 === 0 ? '"4 Pine\nRear"' : '5 Ash')));
    add(cp1252(row('P-3', 'Gärtner')), 'Gärtner');
    add(utf8(row('B-last', 'Zoë')));
    return { bytes: Buffer.concat(parts), pasted };
  }

  function expectRowsDecoded(rows: { rowNumber: number; cells: unknown[] }[], pasted: Map<number, string>): void {
    for (const r of rows) {
      const name = pasted.get(r.rowNumber);
      if (name !== undefined) expect(r.cells[3], `row ${r.rowNumber}`).toBe(name);
      else expect(['Zoë', 'José', 'Ann', 'Søren'], `row ${r.rowNumber}`).toContain(r.cells[3]);
    }
  }

  it('decodes line by line across 64 KB reads, also a pasted row cut by the read boundary, and names the rows', async () => {
    const { bytes, pasted } = multiChunkFile(MAIN_CHUNK);
    expect(bytes.length).toBeGreaterThan(MAIN_CHUNK);
    const { sheet, rows } = await readAll(fixture('mixed-chunks.csv', bytes), MAIN);
    expectRowsDecoded(rows, pasted);
    const [issue] = sheet.issues?.() ?? [];
    expect(issue?.code).toBe('mixed_encoding');
    expect(issue!.message).toContain(`rows ${[...pasted.keys()].join(', ')} are not UTF-8`);
  });

  it('switches to line by line when the first pasted row comes in a later read, cut by its boundary', async () => {
    const { bytes, pasted } = multiChunkFile(MAIN_CHUNK, false);
    const { sheet, rows } = await readAll(fixture('mixed-late.csv', bytes), MAIN);
    expectRowsDecoded(rows, pasted);
    expect(sheet.issues?.()[0]!.message).toContain(`rows ${[...pasted.keys()].join(', ')} are not UTF-8`);
  });

  it('does the same on the parse worker, across its 256 KB reads', async () => {
    const { bytes, pasted } = multiChunkFile(WORKER_CHUNK);
    expect(bytes.length).toBeGreaterThan(WORKER_CHUNK);
    const file = fixture('mixed-worker.csv', bytes);
    const viaWorker = await readAll(file, WORKER);
    expectRowsDecoded(viaWorker.rows, pasted);
    expect(viaWorker.sheet.issues?.()).toEqual((await readAll(file, MAIN)).sheet.issues?.());
    expect(viaWorker.sheet.issues?.()[0]!.message).toContain(`rows ${[...pasted.keys()].join(', ')} are not UTF-8`);
  });

  it('names the first ten pasted rows and counts the rest', async () => {
    const parts = [utf8(`${H}\r\n`), utf8(row('U-1', 'José'))];
    for (let i = 0; i < 25; i++) parts.push(cp1252(row(`CP-${i}`, 'Müller')));
    const { sheet } = await readAll(fixture('mixed-many.csv', Buffer.concat(parts)), MAIN);
    expect(sheet.issues?.()[0]!.message).toContain('rows 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and others further down (25 lines in all) are not UTF-8');
  });

  it('reads a file that is Windows-1252 throughout as before, without a warning', async () => {
    const bytes = cp1252(`${H}\r\n${row('W-1', 'Müller')}${row('W-2', 'Lefèvre')}`);
    const { sheet, rows } = await readAll(fixture('cp1252.csv', bytes), MAIN);
    expect(namesOf(rows)).toEqual(['Müller', 'Lefèvre']);
    expect(sheet.issues?.()).toEqual([]);
  });

  it('reads a UTF-8 file (with its BOM) as before, without a warning', async () => {
    const { sheet, rows } = await readAll(fixture('utf8.csv', utf8(`\ufeff${H}\r\n${row('U-1', 'José')}${row('U-2', '中文')}`)), MAIN);
    expect(namesOf(rows)).toEqual(['José', '中文']);
    expect(sheet.headers[0]).toBe('customerOrderId');
    expect(sheet.issues?.()).toEqual([]);
  });
});

describe('the line-by-line decoder', () => {
  function decode(chunks: Buffer[]): { text: string; offsets: readonly number[]; isMixed: boolean } {
    const decoder = createChunkDecoder('utf-8');
    const text = chunks.map((c) => decoder.decode(c)).join('') + decoder.end();
    return { text, offsets: decoder.windows1252!.offsets, isMixed: decoder.windows1252!.isMixed };
  }

  it('gives the same text wherever the chunks are cut, and notes where the windows-1252 lines start', () => {
    const bytes = Buffer.concat([utf8('id,name\nMX-1,José\n'), cp1252('MX-2,Müller\n'), utf8('MX-3,Zoë\n')]);
    const whole = decode([bytes]);
    expect(whole).toEqual({ text: 'id,name\nMX-1,José\nMX-2,Müller\nMX-3,Zoë\n', offsets: [18], isMixed: true });
    for (let cut = 1; cut < bytes.length; cut++) {
      const split = decode([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(split.text, `cut at ${cut}`).toBe(whole.text);
      // Cut inside the pasted line, it may be noted where its bad chunk starts: still inside that line.
      expect(split.offsets[0]! >= 18 && split.offsets[0]! < 30, `cut at ${cut}`).toBe(true);
    }
  });

  it('splits lines at a lone CR too (Mac line endings)', () => {
    const bytes = Buffer.concat([utf8('id,name\rMX-1,José\r'), cp1252('MX-2,Müller\r'), utf8('MX-3,Zoë\r')]);
    expect(decode([bytes]).text).toBe('id,name\rMX-1,José\rMX-2,Müller\rMX-3,Zoë\r');
  });

  it('reads a line that ends the file inside a character as Windows-1252', () => {
    expect(decode([utf8('a,José\nb,'), Buffer.from([0xc3])])).toMatchObject({ text: 'a,José\nb,Ã', isMixed: true });
  });
});
