/** A sheet of thousands of columns, nearly all unknown: read, warned about in one line, written back whole. */
import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { FIELDS } from '../../src/sheet/columns.js';
import { useTempDir } from '../sheet/support.js';

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
