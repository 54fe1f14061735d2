/** The verdict built from the checker's own output: counts, rows, and the bound on rows kept for the page. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { silentLogger } from '../../src/log.js';
import { buildVerdict, validOrderIds } from '../../src/web/verdict.js';
import { SAMPLES, SAMPLES_AS_OF } from './support.js';
import { useTempFolder } from '../support/temp-dir.js';

async function sampleSheet(name = 'orders-with-mistakes.csv') {
  const file = join(SAMPLES, name);
  const checked = await checkFile(file, { context: { now: SAMPLES_AS_OF, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger });
  if (!checked.ok) throw new Error(checked.message);
  return checked.sheet;
}

const meta = { id: 'AAAAAAAAAAAAAAAA', fileName: 'orders.csv', file: '/x/orders.csv', uploadedAt: '', checkedAsOf: '', timezone: 'UTC' };

describe('the verdict of a sheet', () => {
  it('counts orders and rows as the checker sees them and keeps each row with its issues', async () => {
    const verdict = buildVerdict(await sampleSheet(), meta);
    expect(verdict.counts).toEqual({ rows: 11, orders: 10, valid: 2, invalid: 8, rowsWithWarnings: 2 });
    expect(validOrderIds(verdict)).toEqual(['SO-20001', 'SO-20005']);
    const row3 = verdict.rows.find((r) => r.n === 3)!;
    expect(row3.status).toBe('invalid');
    expect(row3.cells[4]).toBe('samuel.reed@example');
    expect(row3.issues.find((i) => i.column === 'email')?.colIndex).toBe(4);
  });

  it('keeps rows with a problem up to a bound, and only the first clean rows, and says how many it left off', async () => {
    const mistakes = buildVerdict(await sampleSheet(), meta, { withProblems: 3, clean: 1 });
    expect(mistakes.rows.map((r) => r.n)).toEqual([2, 3, 4]);
    expect(mistakes.rowsLeftOff).toBe(8);
    expect(mistakes.counts.rows).toBe(11);
    expect(mistakes.counts.rowsWithWarnings).toBe(2);
    const valid = buildVerdict(await sampleSheet('orders-valid.csv'), meta, { withProblems: 100, clean: 2 });
    const clean = valid.rows.filter((r) => r.issues.length === 0);
    expect(clean.length).toBe(2);
    expect(valid.rows.length + valid.rowsLeftOff).toBe(valid.counts.rows);
  });
});

describe('a date the sheet holds as an Excel serial', () => {
  const dir = useTempFolder('verdict');
  it('is shown as the date it was read as, not as the number', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    // The valid sample with its first order's date replaced by what a spreadsheet saved: 46344.38542 is 2026-11-18 09:15.
    const csv = readFileSync(join(SAMPLES, 'orders-valid.csv'), 'utf8').replace('2026-11-16 09:12', '46344.38542');
    const file = join(dir, 'serial.csv');
    writeFileSync(file, csv);
    const checked = await checkFile(file, { context: { now: SAMPLES_AS_OF, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger });
    if (!checked.ok) throw new Error(checked.message);
    const verdict = buildVerdict(checked.sheet, meta);
    const dateColumn = verdict.headers.indexOf('orderDate');
    const first = verdict.rows.find((r) => r.n === 2)!;
    expect(first.cells[dateColumn]).toBe('2026-11-18 09:15');
    expect(first.status).toBe('valid');
    // Other cells that happen to be numbers stay as they are.
    expect(first.cells[verdict.headers.indexOf('postalOrZipCode')]).toBe('62704');
  });
});
