import { describe, expect, test } from 'vitest';
import { createFixCollector, mapToTemplate } from '../../src/output-files/fix-sheet.js';
import { TEMPLATE_HEADERS } from '../../src/output-files/template-form.js';
import type { ResultRow } from '../../src/output-files/types.js';
import { cells, COLUMNS, issue } from '../support/result-rows.js';

const row = (n: number, order: string, needsFix = true): ResultRow => ({ rowNumber: n, cells: cells(order), status: needsFix ? 'invalid' : 'valid', issues: [], needsFix });

describe('the Fix rows', () => {
  test('maps input columns to template columns, dropping unknown ones; a field named twice maps both (the later value wins)', () => {
    const map = mapToTemplate([...COLUMNS, 'city']);
    expect(map[0]).toBe(TEMPLATE_HEADERS.indexOf('customerOrderId'));
    expect(map[8]).toBe(TEMPLATE_HEADERS.indexOf('postalOrZipCode'));
    expect(map[16]).toBe(-1);
    expect(map[17]).toBe(TEMPLATE_HEADERS.indexOf('city'));
  });

  test('keeps only rows that need fixing, in template order, with their bad cells', () => {
    const collector = createFixCollector(COLUMNS, 10);
    collector.add(row(2, 'A-1', false));
    collector.add({ ...row(3, 'B-2'), issues: [issue(3, 'postalOrZipCode', 'invalid_postal_code', 'Bad ZIP.'), issue(3, null, 'subtotal_mismatch', 'Totals.')] });
    const { rows, droppedRows } = collector.finish();
    expect(droppedRows).toBe(0);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.values[TEMPLATE_HEADERS.indexOf('customerOrderId')]).toBe('B-2');
    expect(rows[0]!.values[TEMPLATE_HEADERS.indexOf('email')]).toBeNull();
    expect(rows[0]!.cells).toEqual([{ templateIndex: TEMPLATE_HEADERS.indexOf('postalOrZipCode'), severity: 'error', note: 'Bad ZIP.' }]);
    expect(rows[0]!.issues).toBe('zip: Bad ZIP.\nTotals.');
  });

  test('marks the empty cell of a column the input lacks, so the user sees what to fill in', () => {
    const collector = createFixCollector(COLUMNS.map((f) => (f === 'sourceOfSale' ? null : f)), 10);
    const missing = { row: 2, column: 'sourceOfSale', code: 'missing_column', severity: 'error', message: 'The sheet has no sourceOfSale column.' } as const;
    collector.add({ ...row(2, 'A-1'), issues: [missing] });
    const [fixRow] = collector.finish().rows;
    const t = TEMPLATE_HEADERS.indexOf('sourceOfSale');
    expect(fixRow!.values[t]).toBeNull();
    expect(fixRow!.cells).toEqual([{ templateIndex: t, severity: 'error', note: 'The sheet has no sourceOfSale column.' }]);
  });

  test('past the limit, drops whole orders so the sheet never offers part of an order', () => {
    const collector = createFixCollector(COLUMNS, 3);
    for (const [n, order] of [[2, 'A'], [3, 'B'], [4, 'C'], [5, 'B'], [6, 'D'], [7, 'A']] as const) collector.add(row(n, order));
    const { rows, droppedRows } = collector.finish();
    // Kept A, B, C (rows 2-4); B (row 5), D and A (row 7) came too late, so A and B go entirely.
    expect(rows.map((r) => r.values[0])).toEqual(['C']);
    expect(droppedRows).toBe(5);
  });
});
