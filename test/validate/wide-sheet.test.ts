/** A sheet of thousands of columns, nearly all unknown: read, warned about in one line, written back whole. */
import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { FIELDS } from '../../src/sheet/columns.js';
import { useTempDir, writeWorkbook } from '../sheet/support.js';

const fixture = useTempDir();
const NOW = new Date('2026-11-20T12:00:00Z');

describe('a CSV with thousands of columns that are not order fields', () => {
  it('is read, its unknown columns counted in one warning after the first ten, and its result has every column', async () => {
    const extra = Array.from({ length: 5_000 }, (_, i) => `extra${i}`);
    const row = (i: number) => FIELDS.map((f) => (f === 'customerOrderId' ? `SO-${i}` : 'x')).join(',');
    const file = fixture('wide.csv', `${[...FIELDS, ...extra].join(',')}\n${row(1)}\n${row(2)},tail\n`);
    const out = fixture('wide.result.csv');
    const result = await runValidate({ files: [file], out, context: { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger });

    const warnings = (result.report.input[0]!.issues ?? []).filter((i) => i.code === 'unknown_column');
    expect(warnings).toHaveLength(11);
    expect(warnings[10]!.message).toMatch(/^4,990 more columns are not order fields and are ignored/);
    expect([...result.report.orders].map((o) => o.customerOrderId)).toEqual(['SO-1', 'SO-2']);

    const rows = Papa.parse<string[]>(readFileSync(out, 'utf8').replace(/^\ufeff/, ''), { skipEmptyLines: true }).data;
    // Every input column, then status and issues, on the header and on both short rows alike.
    expect(rows.map((r) => r.length)).toEqual([FIELDS.length + 5_002, FIELDS.length + 5_002, FIELDS.length + 5_002]);
    expect(rows[2]![FIELDS.length]).toBe('tail');
    expect(rows[1]!.slice(FIELDS.length, FIELDS.length + 5_000).every((cell) => cell === '')).toBe(true);
    expect(rows[1]![FIELDS.length + 5_000]).toBe('invalid');
  });
});

describe('a workbook with thousands of columns of numbers and text', () => {
  const extra = 3_000;
  const cellsOf = (order: string, tail: (string | number | boolean | null)[]) => [...FIELDS.map((f) => (f === 'customerOrderId' ? order : 'x')), ...tail];
  const numbers = (k: number) => Array.from({ length: extra }, (_, i) => (i % 7 === 3 ? null : i % 5 === 1 ? `t${i}` : (k * 7919 + i) / (i % 3 === 0 ? 1 : 8)));
  const rows = [
    cellsOf('SO-1', numbers(1)),
    cellsOf('SO-2', [...numbers(2).slice(0, -2), 'a, b', true]),
    cellsOf('SO-3', [...numbers(3).slice(0, -1), -3]),
  ];
  const write = () =>
    writeWorkbook(fixture, 'wide.xlsx', (workbook) => {
      const sheet = workbook.addWorksheet('Orders');
      sheet.addRow([...FIELDS, ...Array.from({ length: extra }, (_, i) => `extra${i}`)]);
      for (const row of rows) sheet.addRow(row);
    });
  const validate = (file: string, out: string) => runValidate({ files: [file], out, context: { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger });

  it('writes every cell back to the result CSV as the sheet shows it: numbers as numbers, never neutralised', async () => {
    const out = fixture('wide-xlsx.result.csv');
    await validate(await write(), out);
    const written = Papa.parse<string[]>(readFileSync(out, 'utf8').replace(/^\ufeff/, ''), { skipEmptyLines: true }).data.slice(1);
    const width = FIELDS.length + extra;
    expect(written.map((r) => r.slice(0, width))).toEqual(rows.map((r) => r.map((cell) => (cell === null ? '' : String(cell)))));
    expect(written.map((r) => r[width])).toEqual(['invalid', 'invalid', 'invalid']);
  });

  it('keeps each cell\'s type in the result workbook', async () => {
    const out = fixture('wide-xlsx.result.xlsx');
    await validate(await write(), out);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(out);
    const results = workbook.getWorksheet('Results')!;
    const values = [2, 3, 4].map((r) => Array.from((results.getRow(r).values as unknown[]).slice(1, FIELDS.length + extra + 1), (v) => v ?? null));
    expect(values).toEqual(rows);
  });
});
