import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openSheet } from '../../src/sheet/read-sheet.js';
import { readAll, readError, useTempDir } from './support.js';

const fixture = useTempDir();

describe('reading CSV', () => {
  it('reads a UTF-8 file with a BOM and leaves no BOM in the first header', async () => {
    const file = fixture('bom.csv', '\ufeffcustomerOrderId,name\r\nSO-1,Mug\r\n');
    const { sheet, rows } = await readAll(file);
    expect(sheet.format).toBe('csv');
    expect(sheet.headers).toEqual(['customerOrderId', 'name']);
    expect(rows).toEqual([{ rowNumber: 2, cells: ['SO-1', 'Mug'] }]);
  });

  it('detects semicolon-delimited files from the header line', async () => {
    const file = fixture('semicolon.csv', 'customerOrderId;unitPrice;name\nSO-1;1,50;Mug, blue\n');
    const { sheet, rows } = await readAll(file);
    expect(sheet.headers).toEqual(['customerOrderId', 'unitPrice', 'name']);
    expect(rows[0]!.cells).toEqual(['SO-1', '1,50', 'Mug, blue']);
  });

  it('detects tab-delimited files from the header line', async () => {
    const file = fixture('tabs.txt', 'customerOrderId\tname\tquantity\nSO-1\tMug, blue\t2\n');
    const { sheet, rows } = await readAll(file);
    expect(sheet.headers).toEqual(['customerOrderId', 'name', 'quantity']);
    expect(rows[0]!.cells).toEqual(['SO-1', 'Mug, blue', '2']);
  });

  it('takes the delimiter from Excel\'s "sep=" first line and does not count that line as a row', async () => {
    const file = fixture('sep-hint.csv', 'sep=;\r\ncustomerOrderId;name\r\nSO-1;Mug, blue\r\n');
    const { sheet, rows } = await readAll(file);
    expect(sheet.headers).toEqual(['customerOrderId', 'name']);
    expect(sheet.headerRow).toBe(1);
    expect(rows).toEqual([{ rowNumber: 2, cells: ['SO-1', 'Mug, blue'] }]);
  });

  it('reads CRLF, LF and CR line endings alike', async () => {
    for (const [name, eol] of [['crlf.csv', '\r\n'], ['lf.csv', '\n'], ['cr.csv', '\r']] as const) {
      const file = fixture(name, ['customerOrderId,name', 'SO-1,Mug', 'SO-2,Cup'].join(eol) + eol);
      const { rows } = await readAll(file);
      expect(rows.map((r) => [r.rowNumber, ...r.cells]), name).toEqual([[2, 'SO-1', 'Mug'], [3, 'SO-2', 'Cup']]);
    }
  });

  it('keeps a quoted line break inside its cell and numbers the following rows as a spreadsheet does', async () => {
    const file = fixture('quoted.csv', 'customerOrderId,addressLine1\r\nSO-1,"12 Main St\r\nBuilding 4"\r\nSO-2,"1 ""Quoted"" Rd"\r\nSO-3,9 Elm St\r\n');
    const { rows } = await readAll(file);
    expect(rows.map((r) => r.rowNumber)).toEqual([2, 3, 4]);
    expect(rows[0]!.cells[1]).toBe('12 Main St\r\nBuilding 4');
    expect(rows[1]!.cells[1]).toBe('1 "Quoted" Rd');
  });

  it('skips blank rows, rows of only delimiters and rows of only spaces without renumbering the rest', async () => {
    const file = fixture('blank.csv', '\n ,\ncustomerOrderId,name\nSO-1,Mug\n\n,,\n  \t,\u00a0\nSO-2,Cup\n');
    const { sheet, rows } = await readAll(file);
    expect(sheet.headerRow).toBe(3);
    expect(rows.map((r) => r.rowNumber)).toEqual([4, 8]);
  });

  it('pads short rows with null and keeps the extra cells of long rows', async () => {
    const file = fixture('ragged.csv', 'customerOrderId,name,quantity\nSO-1\nSO-2,Mug,2,extra,\n');
    const { rows } = await readAll(file);
    expect(rows[0]!.cells).toEqual(['SO-1', null, null]);
    expect(rows[1]!.cells).toEqual(['SO-2', 'Mug', '2', 'extra', '']);
  });

  it('keeps cells raw: spaces, leading zeros and scientific notation survive as written', async () => {
    const file = fixture('raw.csv', 'customerOrderId,postalOrZipCode,phone\n  SO-1 ,02134,2.17555E+09\n');
    const { rows } = await readAll(file);
    expect(rows[0]!.cells).toEqual(['  SO-1 ', '02134', '2.17555E+09']);
  });

  it('trims headers of spaces and non-breaking spaces and drops trailing empty header cells', async () => {
    const file = fixture('headers.csv', ' customerOrderId ,\u00a0Full\u00a0 Name\u00a0,,\nSO-1,Maria,,\n');
    const { sheet } = await readAll(file);
    expect(sheet.headers).toEqual(['customerOrderId', 'Full Name']);
  });

  it('reads UTF-16 LE text with a BOM (Excel "Unicode text"), tab-delimited', async () => {
    const text = '\ufeffcustomerOrderId\tfullName\r\nSO-1\tZoë Müller\r\n';
    const { sheet, rows } = await readAll(fixture('unicode-le.txt', Buffer.from(text, 'utf16le')));
    expect(sheet.headers).toEqual(['customerOrderId', 'fullName']);
    expect(rows[0]!.cells).toEqual(['SO-1', 'Zoë Müller']);
  });

  it('reads UTF-16 BE text with a BOM', async () => {
    const bytes = Buffer.from('\ufeffcustomerOrderId\tfullName\nSO-1\tChloé\n', 'utf16le').swap16();
    const { rows } = await readAll(fixture('unicode-be.txt', bytes));
    expect(rows[0]!.cells).toEqual(['SO-1', 'Chloé']);
  });

  it('falls back to windows-1252 when the bytes are not UTF-8, with curly quotes and the euro sign', async () => {
    const bytes = Buffer.concat([
      Buffer.from('customerOrderId,name\r\nSO-1,Caf', 'latin1'),
      Buffer.from([0xe9, 0x20, 0x93, 0x41, 0x94, 0x20, 0x80, 0x35, 0x20, 0x96, 0x20, 0x99]),
      Buffer.from('\r\n', 'latin1'),
    ]);
    const { rows } = await readAll(fixture('windows.csv', bytes));
    expect(rows[0]!.cells).toEqual(['SO-1', 'Café “A” €5 – ™']);
  });

  it('switches to windows-1252 when the first non-UTF-8 byte comes after a megabyte of ASCII', async () => {
    const filler = 'SO-0,' + 'x'.repeat(94) + '\n';
    const head = 'customerOrderId,name\n' + filler.repeat(11_000);
    const bytes = Buffer.concat([Buffer.from(head), Buffer.from('SO-9,Jos'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const { rows } = await readAll(fixture('late-1252.csv', bytes));
    expect(rows.at(-1)!.cells).toEqual(['SO-9', 'José']);
    expect(rows).toHaveLength(11_001);
  });

  it('keeps a multi-byte character whole when it straddles the 1 MiB read boundary', async () => {
    const header = 'customerOrderId,name\n';
    const row = 'SO-0,' + 'a'.repeat(94) + '\n';
    let text = header + row.repeat(Math.floor((1024 * 1024 - header.length) / row.length));
    text += 'SO-1,' + 'b'.repeat(1024 * 1024 - Buffer.byteLength(text) - 5 - 1) + '€uro\n';
    const bytes = Buffer.from(text);
    expect(bytes.indexOf(Buffer.from('€'))).toBe(1024 * 1024 - 1); // the 3-byte euro sign is cut after its first byte
    const { rows } = await readAll(fixture('boundary.csv', bytes));
    expect(rows.at(-1)!.cells[1]).toMatch(/^b+€uro$/);
  });

  it('yields rows in batches of the requested size', async () => {
    const file = fixture('batches.csv', 'customerOrderId\n' + ['SO-1', 'SO-2', 'SO-3', 'SO-4', 'SO-5'].join('\n'));
    const { batches } = await readAll(file, { batchSize: 2 });
    expect(batches).toEqual([2, 2, 1]);
  });

  it('reports the SHA-256 and size of the file once every row has been read', async () => {
    const content = 'customerOrderId,name\nSO-1,Mug\nSO-2,Cup\n';
    const file = fixture('hash.csv', content);
    const { sheet } = await readAll(file);
    expect(sheet.sha256()).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
    expect(sheet.bytesRead()).toBe(Buffer.byteLength(content));
    expect(sheet.sizeBytes).toBe(Buffer.byteLength(content));
  });

  it('refuses a quote that is never closed, naming the row where it opens', async () => {
    const file = fixture('open-quote.csv', 'customerOrderId,name\nSO-1,Mug\nSO-2,"Cup\nSO-3,Plate\n');
    const error = await readError(file);
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('row 3');
    expect(error.message).toContain('never closed');
  });

  it('says what is wrong with text after a closing quote, which papaparse also reads as a quote left open', async () => {
    const file = fixture('text-after-quote.csv', 'customerOrderId,fullName\nSO-1,Ann\nSO-2,"Ann" Lee\nSO-3,Bo\n');
    const error = await readError(file);
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('row 3 has a cell that starts with a quote (") and goes on after the closing quote');
    expect(error.message).not.toContain('never closed');
  });

  it('releases the file when the rows are abandoned before the first batch', async () => {
    const file = fixture('abandon.csv', 'customerOrderId\nSO-1\nSO-2\n');
    const sheet = await openSheet(file);
    await sheet.rows[Symbol.asyncIterator]().return?.();
    const next = await sheet.rows[Symbol.asyncIterator]().next();
    expect(next.done).toBe(true);
  });
});
