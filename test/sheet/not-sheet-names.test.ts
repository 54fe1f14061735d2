import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readError, useTempDir } from './support.js';

const fixture = useTempDir();

describe('a file whose name says it is certainly not a sheet', () => {
  it('refuses a short text file named notes.pdf as unsupported_format, not as text without order columns', async () => {
    const error = await readError(fixture('notes.pdf', 'hello'));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toMatch(/notes\.pdf is not an order sheet: its name ends in \.pdf \(a PDF document\), and order sheets are \.xlsx or \.csv files/);
    expect(error.message).toContain('rename it to notes.csv');
    expect(error.message).not.toMatch(/give the path|reads as text/i);
  });

  it('refuses a real PDF as a PDF document, whatever its name', async () => {
    for (const name of ['scan.pdf', 'orders.csv']) {
      const error = await readError(fixture(name, '%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'));
      expect(error.code, name).toBe('unsupported_format');
      expect(error.message, name).toContain(`${name} is a PDF document`);
    }
  });

  it('refuses order columns saved under a .docx, .png or .zip name, and an empty one', async () => {
    const csv = 'customerOrderId,name,quantity\nSO-1,Mug,1\n';
    const cases: [string, string][] = [['orders.docx', 'a word-processor document'], ['orders.png', 'an image'], ['orders.zip', 'an archive']];
    for (const [name, what] of cases) {
      const error = await readError(fixture(name, csv));
      expect(error.code, name).toBe('unsupported_format');
      expect(error.message, name).toContain(`its name ends in ${name.slice(name.lastIndexOf('.'))} (${what})`);
    }
    const empty = await readError(fixture('empty.pdf', ''));
    expect(empty.code).toBe('unsupported_format');
  });

  it('says an xlsx named .pdf is really a workbook and what to rename it to', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Orders').addRow(['customerOrderId', 'name']);
    const source = fixture('source.xlsx');
    await workbook.xlsx.writeFile(source);
    const error = await readError(fixture('orders.pdf', readFileSync(source)));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toContain('rename it to orders.xlsx');
  });

  it('words the note of a text file without order columns for the web page too (no "give the path")', async () => {
    const error = await readError(fixture('readme.txt', 'Drop the order sheets here.\n'));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).not.toMatch(/give the path/i);
    expect(error.message).toContain('Use a .csv or .xlsx order sheet');
  });
});
