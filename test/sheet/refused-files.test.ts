import { mkdirSync, readFileSync, truncateSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readError, useTempDir } from './support.js';

const fixture = useTempDir();

async function validXlsx(name: string, rows = 200): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Orders');
  sheet.addRow(['customerOrderId', 'name', 'quantity']);
  for (let i = 0; i < rows; i++) sheet.addRow([`SO-${i}`, `Item number ${i} with a longer name`, i]);
  const path = fixture(name);
  await workbook.xlsx.writeFile(path);
  return path;
}

/** The library's own error text must never be the whole message. */
function expectOwnMessage(error: InputError): void {
  expect(error.message).not.toMatch(/^(Error: )?(invalid|unexpected|FILE_ENDED|ENOENT|EISDIR)/);
}

describe('files that are refused with a one-line reason naming the file', () => {
  it('refuses a missing file as unreadable', async () => {
    const error = await readError(fixture('nowhere.csv'));
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('not found');
    expectOwnMessage(error);
  });

  it('refuses a folder as unreadable', async () => {
    const dir = fixture('folder.csv');
    mkdirSync(dir);
    const error = await readError(dir);
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('folder');
  });

  it('refuses a legacy .xls workbook and says to save it as .xlsx or .csv', async () => {
    const ole2 = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]);
    const error = await readError(fixture('legacy.xls', ole2));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toMatch(/\.xls\b.*save it as \.xlsx or \.csv/);
  });

  it('refuses an OpenDocument spreadsheet', async () => {
    const header = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from('mimetypeapplication/vnd.oasis.opendocument.spreadsheet')]);
    const error = await readError(fixture('sheet.ods', header));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toContain('OpenDocument spreadsheet (.ods)');
  });

  it('refuses PDFs, images and other binaries', async () => {
    const cases: [string, Buffer, string][] = [
      ['orders.pdf', Buffer.from('%PDF-1.7\n%\xe2\xe3\n', 'latin1'), 'PDF'],
      ['scan.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'PNG image'],
      ['photo.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]), 'JPEG image'],
      ['blob.csv', Buffer.from([0x01, 0x02, 0x00, 0x7f, 0x00, 0x00, 0x10, 0x99, 0x00]), 'binary file'],
    ];
    for (const [name, bytes, what] of cases) {
      const error = await readError(fixture(name, bytes));
      expect(error.code, name).toBe('unsupported_format');
      expect(error.message, name).toContain(what);
    }
  });

  it('refuses xlsx bytes named .csv, saying what the file is and what to rename it to', async () => {
    const bytes = readFileSync(await validXlsx('source.xlsx'));
    const error = await readError(fixture('mislabelled.csv', bytes));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toContain('really an Excel workbook');
    expect(error.message).toContain('rename it to mislabelled.xlsx');
  });

  it('refuses text named .xlsx, saying to rename it to .csv', async () => {
    const error = await readError(fixture('export.xlsx', 'customerOrderId,name\nSO-1,Mug\n'));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toContain('rename it to export.csv');
  });

  it('refuses a web page saved with an .xls name', async () => {
    const error = await readError(fixture('report.xls', '<html><body><table><tr><td>customerOrderId</td></tr></table></body></html>'));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toContain('web page (HTML)');
  });

  it('refuses an empty file, a file of blank lines and a header without rows as empty', async () => {
    for (const [name, content, says] of [
      ['zero.csv', '', 'is empty'],
      ['blank-lines.csv', '\r\n ,, \r\n\r\n', 'no rows'],
      ['bom-only.csv', '\ufeff', 'no rows'],
      ['header-only.csv', 'customerOrderId,name\r\n\r\n', 'header row but no orders'],
    ] as const) {
      const error = await readError(fixture(name, content));
      expect(error.code, name).toBe('empty_file');
      expect(error.message, name).toContain(says);
    }
  });

  it('refuses a truncated workbook as damaged and says to re-save it', async () => {
    const bytes = readFileSync(await validXlsx('whole.xlsx'));
    const error = await readError(fixture('truncated.xlsx', bytes.subarray(0, Math.floor(bytes.length * 0.6))));
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('damaged or incomplete');
    expect(error.message).toContain('re-save');
  });

  it('refuses a workbook corrupted inside, from the row iterator, without hanging', async () => {
    const bytes = Buffer.from(readFileSync(await validXlsx('intact.xlsx', 2000)));
    for (let i = 3000; i < 9000; i++) bytes[i] = (i * 7) & 0xff;
    const error = await readError(fixture('corrupt.xlsx', bytes));
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('damaged or incomplete');
    expect(error.cause).toBeDefined();
    expectOwnMessage(error);
  });

  it('refuses a zip archive that is not a workbook', async () => {
    const bytes = readFileSync(await validXlsx('base.xlsx'));
    // Same container, but no entry names of a workbook anywhere.
    const renamed = Buffer.from(bytes.toString('latin1').replaceAll('xl/', 'zz/').replaceAll('[Content_Types]', '[Content_Typez]'), 'latin1');
    const error = await readError(fixture('archive.zip', renamed));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toContain('zip archive');
  });

  it('reads a CSV larger than 2 GiB (no size cap) and stops at the first cell past the cell limit', async () => {
    const file = fixture('huge.csv', 'customerOrderId,name\n' + 'SO-1,Mug\n'.repeat(10_000));
    truncateSync(file, 2 * 1024 ** 3 + 1); // sparse beyond the text: one endless row of NUL characters, taking no disk space
    const error = await readError(file, { workerMinBytes: Infinity });
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('row 10002, column A holds a cell of more than 1,048,576 characters');
  });
});
