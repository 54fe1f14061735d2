/**
 * A CSV whose records end in a mix of CRLF and LF (LF rows appended to our CRLF template, or the reverse): every
 * record ends at either, on the main thread and on the parse worker, wherever the reads cut the file (a CR at
 * the end of one read, its LF at the start of the next). papaparse's own guess made such a file one CRLF record
 * holding every LF row: order 1001 named "Mug\n1002", order 1002 gone.
 * The worker cases run the compiled worker: `npm run build` first (or CLI_DIST=<a private build>).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { silentLogger } from '../../src/log.js';
import { createLoneCrNormalizer, parseCsvFile } from '../../src/sheet/csv-records.js';
import { SHEET_LIMITS } from '../../src/sheet/limits.js';
import type { OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import { readAll, useTempDir } from './support.js';

const fixture = useTempDir();
const MAIN: OpenSheetOptions = { workerMinBytes: Number.POSITIVE_INFINITY };
const WORKER: OpenSheetOptions = { workerMinBytes: 0, workerUrl: pathToFileURL(resolve(process.env.CLI_DIST ?? 'dist', 'sheet/csv-parse-worker.js')) };
const PATHS = [['main thread', MAIN], ['parse worker', WORKER]] as const;
/** The read sizes of read-csv.ts and csv-parse-worker.ts: a large file has a CR right before each. */
const READ_BOUNDARIES = [64 * 1024, 256 * 1024];
const NOW = new Date('2026-11-21T12:00:00Z');

/** The QA repro's header: the line item's name last, so a CR or a following row would land in it. */
const H = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,quantity,unitPrice,salesTax,name';
type Ending = '\r\n' | '\n' | '\r';

interface Row {
  id: number;
  ending: Ending;
  /** The address cell is quoted and holds this line break before a second line, "Apt 2". */
  addressBreak?: Ending;
}

function rowText(row: Row, pad = ''): string {
  const street = `${row.id} Main St${pad}`;
  const address = row.addressBreak ? `"${street}${row.addressBreak}Apt 2"` : street;
  return `${row.id},2026-11-20,OtherMarketplace,Ann Lee,${address},Boston,MA,02134,US,6175550100,PRD-${row.id},1,1,10.00,0,Item ${row.id}${row.ending}`;
}

/**
 * The file's text; in a large one, the first CR that would follow each read boundary is moved onto the byte
 * before it (spaces after the street, which the checker trims), so that its LF starts the next read.
 */
function sheetText(headerEnding: Ending, rows: Row[]): string {
  let text = H + headerEnding;
  const pending = [...READ_BOUNDARIES];
  for (const row of rows) {
    let line = rowText(row);
    const cr = line.indexOf('\r');
    const gap = cr === -1 || pending.length === 0 ? -1 : pending[0]! - 1 - (text.length + cr);
    if (gap >= 0 && gap < 400) {
      line = rowText(row, ' '.repeat(gap));
      expect(text.length + line.indexOf('\r')).toBe(pending.shift()! - 1);
    }
    text += line;
  }
  const hasCr = rows.some((r) => r.ending !== '\n' || (r.addressBreak !== undefined && r.addressBreak !== '\n'));
  if (hasCr && text.length > READ_BOUNDARIES.at(-1)!) expect(pending).toEqual([]);
  return text;
}

function rowsOf(count: number, row: (id: number) => Omit<Row, 'id'>): Row[] {
  return Array.from({ length: count }, (_, i) => ({ id: 1001 + i, ...row(1001 + i) }));
}

/** The four mixes QA named; `count` data rows each, the odd LF row of the third `lfRow` rows down. */
function cases(count: number, lfRow: number): [string, Ending, Row[]][] {
  const middle = 1001 + lfRow;
  return [
    ['a CRLF header and LF rows (the repro)', '\r\n', rowsOf(count, () => ({ ending: '\n' }))],
    ['an LF header and CRLF rows', '\n', rowsOf(count, () => ({ ending: '\r\n' }))],
    ['CRLF rows with one LF row past the first reads', '\r\n', rowsOf(count, (id) => ({ ending: id === middle ? '\n' : '\r\n' }))],
    ['an LF file whose quoted addresses hold a CRLF', '\n', rowsOf(count, (id) => ({ ending: '\n', addressBreak: id % 3 === 0 ? '\r\n' : undefined }))],
  ];
}

async function expectEveryOrder(file: string, rows: Row[], read: OpenSheetOptions): Promise<void> {
  const checked = await checkFile(file, { context: { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger, read });
  if (!checked.ok) throw new Error(checked.message);
  const { sheet } = checked;
  expect(sheet.headers.at(-1)).toBe('name');
  expect(sheet.fileIssues.filter((i) => i.code === 'unknown_column')).toEqual([]);
  expect(sheet.orders.map((o) => o.customerOrderId)).toEqual(rows.map((r) => String(r.id)));
  expect(sheet.orders.filter((o) => o.status !== 'valid')).toEqual([]);
  expect(sheet.orders.map((o) => o.payload!.orderDetails.lineItems.map((l) => l.name).join('|'))).toEqual(rows.map((r) => `Item ${r.id}`));
  // The stored cells go into the result file: no CR left on a record's last cell.
  expect([...sheet.rows].map((r) => r.cells[15])).toEqual(rows.map((r) => `Item ${r.id}`));
  // A row's number is its record's: a quoted line break does not start a row.
  expect(sheet.orders.map((o) => o.rows[0])).toEqual(rows.map((_, i) => i + 2));
  for (const [i, row] of rows.entries()) {
    if (!row.addressBreak) continue;
    expect(sheet.orders.at(i)!.payload!.customerDetails.shippingAddress).toMatchObject({ addressLines: [`${row.id} Main St`, 'Apt 2'] });
  }
}

describe('a CSV whose records end in both CRLF and LF', () => {
  for (const [path, read] of PATHS) {
    for (const [k, [name, headerEnding, rows]] of cases(3, 1).entries()) {
      it(`reads every order of a small file with ${name} (${path})`, async () => {
        await expectEveryOrder(fixture(`small-${k}-${read === MAIN ? 'main' : 'worker'}.csv`, sheetText(headerEnding, rows)), rows, read);
      });
    }
    // ~330 KB: five main-thread reads, two worker reads; the odd LF row comes after the worker's first read.
    for (const [k, [name, headerEnding, rows]] of cases(2800, 2600).entries()) {
      it(`reads every order of a file over several reads with ${name}, a CR ending each read (${path})`, async () => {
        const text = sheetText(headerEnding, rows);
        expect(text.length).toBeGreaterThan(READ_BOUNDARIES[1]! + 30_000);
        if (k === 2) expect(text.indexOf(`Item ${1001 + 2600}\n`)).toBeGreaterThan(READ_BOUNDARIES[1]!);
        await expectEveryOrder(fixture(`large-${k}-${read === MAIN ? 'main' : 'worker'}.csv`, text), rows, read);
      });
    }
  }

  it('keeps a CR-only (old Mac) file working, with a quoted line break inside a cell', async () => {
    const text = `${H}\r1001,2026-11-20,OtherMarketplace,Ann Lee,"1 Main St\nApt 2",Boston,MA,02134,US,6175550100,PRD-1,1,1,10.00,0,Mug\r1002,2026-11-20,OtherMarketplace,Bo Roe,2 Main St,Boston,MA,02134,US,6175550101,PRD-2,1,1,10.00,0,Bowl\r`;
    const { rows } = await readAll(fixture('mac.csv', text), MAIN);
    expect(rows.map((r) => [r.rowNumber, r.cells[0], r.cells[4], r.cells[15]])).toEqual([[2, '1001', '1 Main St\nApt 2', 'Mug'], [3, '1002', '2 Main St', 'Bowl']]);
  });

  it('still takes the delimiter from a CRLF "sep=;" line above LF rows, and does not count it as a row', async () => {
    const { sheet, rows } = await readAll(fixture('sep.csv', 'sep=;\r\ncustomerOrderId;name\nSO-1;Mug\r\n\r\nSO-2;"Bowl"\r\n'), MAIN);
    expect(sheet.headers).toEqual(['customerOrderId', 'name']);
    expect(rows.map((r) => [r.rowNumber, ...r.cells])).toEqual([[2, 'SO-1', 'Mug'], [4, 'SO-2', 'Bowl']]);
  });
});

describe('the records of a mixed file, whatever the read size', () => {
  const text = 'id,note,name\r\n1,a,Mug\n2,"x\r\ny",Bowl\r\n\r\n3,b,"Cup"\r\n4,"q",Pan\n5,c,Pot';
  const expected = [[1, 'id', 'note', 'name'], [2, '1', 'a', 'Mug'], [3, '2', 'x\r\ny', 'Bowl'], [5, '3', 'b', 'Cup'], [6, '4', 'q', 'Pan'], [7, '5', 'c', 'Pot']];

  function records(file: string, readBytes: number): Promise<unknown[][]> {
    return new Promise((resolvePromise, reject) => {
      const found: unknown[][] = [];
      parseCsvFile(file, 'utf-8', readBytes, SHEET_LIMITS, { row: (cells, n) => found.push([n, ...cells]), end: () => resolvePromise(found), fail: reject });
    });
  }

  it('splits at CRLF and at LF alike with every read size from 1 to 40 bytes, so each CR|LF cut is met', async () => {
    const file = fixture('cuts.csv', text);
    for (let readBytes = 1; readBytes <= 40; readBytes++) expect(await records(file, readBytes), `reads of ${readBytes} bytes`).toEqual(expected);
  });
});

describe('a CSV whose lines end in lone CRs and LFs (an old Mac file\'s lines among LF ones)', () => {
  const ENDINGS: Ending[] = ['\r', '\n', '\r\n'];
  const mixes: [string, Ending, Row[]][] = [
    ['a lone-CR header and LF rows', '\r', rowsOf(3, () => ({ ending: '\n' }))],
    ['an LF header and lone-CR rows', '\n', rowsOf(3, () => ({ ending: '\r' }))],
    ['LF rows with one lone-CR row', '\n', rowsOf(3, (id) => ({ ending: id === 1002 ? '\r' : '\n' }))],
    ['lone-CR, LF and CRLF rows in turn, with quoted line breaks of each kind', '\r', rowsOf(6, (id) => ({ ending: ENDINGS[id % 3]!, addressBreak: ENDINGS[(id + 1) % 3]! }))],
  ];
  for (const [path, read] of PATHS) {
    for (const [k, [name, headerEnding, rows]] of mixes.entries()) {
      it(`reads every order of a file with ${name} (${path})`, async () => {
        await expectEveryOrder(fixture(`cr-${k}-${read === MAIN ? 'main' : 'worker'}.csv`, sheetText(headerEnding, rows)), rows, read);
      });
    }
    it(`reads every order of a file over several reads with lone-CR and LF rows in turn, a CR ending each read (${path})`, async () => {
      const rows = rowsOf(2800, (id) => ({ ending: id % 2 === 0 ? '\r' : '\n' }));
      const text = sheetText('\r', rows);
      expect(text.length).toBeGreaterThan(READ_BOUNDARIES[1]! + 30_000);
      await expectEveryOrder(fixture(`cr-large-${read === MAIN ? 'main' : 'worker'}.csv`, text), rows, read);
    });
  }

  it('splits at lone CR, LF and CRLF alike with every read size from 1 to 40 bytes', async () => {
    const file = fixture('cr-cuts.csv', 'id,note,name\r1,a,Mug\n2,"x\r\ny",Bowl\r\r3,b,"Cup"\r\n4,"q",Pan\r5,c,Pot\r');
    const expected = [[1, 'id', 'note', 'name'], [2, '1', 'a', 'Mug'], [3, '2', 'x\r\ny', 'Bowl'], [5, '3', 'b', 'Cup'], [6, '4', 'q', 'Pan'], [7, '5', 'c', 'Pot']];
    for (let readBytes = 1; readBytes <= 40; readBytes++) {
      const found = await new Promise<unknown[][]>((resolvePromise, reject) => {
        const rows: unknown[][] = [];
        parseCsvFile(file, 'utf-8', readBytes, SHEET_LIMITS, { row: (cells, n) => rows.push([n, ...cells]), end: () => resolvePromise(rows), fail: reject });
      });
      expect(found, `reads of ${readBytes} bytes`).toEqual(expected);
    }
  });
});

describe('createLoneCrNormalizer', () => {
  it('turns each lone CR into an LF and leaves CRLF and LF alone, one character for one', () => {
    const lines = createLoneCrNormalizer();
    const text = 'a\rb\r\nc\nd\r\re';
    expect(lines.normalize(text) + lines.end()).toBe('a\nb\r\nc\nd\n\ne');
  });

  it('holds a CR that ends a piece until the next one says whether an LF follows it', () => {
    const lines = createLoneCrNormalizer();
    expect([lines.normalize('a\r'), lines.normalize('\nb\r'), lines.normalize('c\r'), lines.end()]).toEqual(['a', '\r\nb', '\nc', '\n']);
  });
});
