/** The run report in words: control characters never reach the terminal raw, and a problem shared by many rows is said once. */
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/run-report/json.js';
import { formatReconcileText, formatValidateText } from '../../src/run-report/text.js';
import { escapeControlCharacters, escapeControlCharactersInLines } from '../../src/terminal-text.js';

const ESC = '\u001b';
const BEL = '\u0007';

function report(orders: { id: string; file?: string; issues: { row: number | null; column: string | null; code: string; message: string }[] }[], files = ['orders.csv']): JsonReport {
  return {
    command: 'import',
    input: files.map((file) => ({ file, sha256: 'x', rows: 10, orders: orders.length })),
    summary: { failed: orders.length },
    orders: orders.map((o) => ({ customerOrderId: o.id, file: o.file ?? files[0], rows: [], status: 'failed', issues: o.issues.map((i) => ({ ...i, severity: 'error' })) })),
    output: 'orders.import-result.xlsx',
  };
}

describe('escaping control characters', () => {
  it('shows ESC, BEL, CR, DEL, C1 and bidirectional overrides as escapes, and keeps tabs', () => {
    expect(escapeControlCharacters(`${ESC}]0;owned${BEL}a\rb\tc\u007f\u009b\u202Ed\ne`)).toBe('\\x1B]0;owned\\x07a\\rb\tc\\x7F\\x9B\\u202Ed\\ne');
  });

  it('keeps the line feeds of a text of several lines', () => {
    expect(escapeControlCharactersInLines(`one ${ESC}[2J\ntwo\n`)).toBe('one \\x1B[2J\ntwo\n');
  });
});

describe('formatValidateText', () => {
  it('prints no control character of a cell, an issue or a file name raw, nor a line feed that would fake a line', () => {
    const file = `orders${ESC}[2J.csv`;
    const text = formatValidateText(report([{ id: 'SO-1', issues: [{ row: 2, column: 'sourceOfSale', code: 'not_allowed', message: `"${ESC}]0;owned${BEL}" is not allowed\nResult: elsewhere.xlsx` }] }], [file]));
    expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/);
    expect(text).toContain('orders\\x1B[2J.csv: 10 rows');
    expect(text).toContain('"\\x1B]0;owned\\x07" is not allowed\\nResult: elsewhere.xlsx');
    expect(text.match(/^Result: /gm)).toHaveLength(1);
  });

  it('says a problem every order shares once, with the rows and how many', () => {
    const notSent = 'Not sent: the API could not be reached (connection refused). Run the import again once the API answers again.';
    const orders = [2, 4, 5, 6, 9, 10, 11, 12].map((row, i) => ({ id: `SO-${i}`, issues: [{ row, column: null, code: 'failed', message: notSent }] }));
    const text = formatValidateText(report(orders));
    expect(text.split('\n').filter((line) => line.includes('Not sent:'))).toEqual([`  rows 2, 4, 5, 6, 9 and 3 more (8 in all): ${notSent}`]);
  });

  it('names the file of each row of a shared problem when the run read several files, and lists one problem as before', () => {
    const text = formatValidateText(
      report(
        [
          { id: 'A-1', file: 'a.csv', issues: [{ row: 2, column: 'phone', code: 'invalid_phone', message: 'Not a phone number.' }] },
          { id: 'B-1', file: 'b.csv', issues: [{ row: 7, column: 'phone', code: 'invalid_phone', message: 'Not a phone number.' }] },
          { id: 'B-2', file: 'b.csv', issues: [{ row: 9, column: 'email', code: 'invalid_email', message: 'Not an email address.' }] },
        ],
        ['a.csv', 'b.csv'],
      ),
    );
    expect(text).toContain('  a.csv row 2, b.csv row 7 (2 in all), phone: Not a phone number.\n');
    expect(text).toContain('  b.csv, row 9, email: Not an email address.\n');
  });
});

describe('formatReconcileText', () => {
  it('escapes the control characters of what the API said', () => {
    const text = formatReconcileText({ ...report([]), command: 'reconcile', summary: { exception: 1 }, orders: [{ customerOrderId: `SO-${ESC}[2J`, status: 'exception', exceptions: [{ type: 'unknown_order', detail: `carrier ${ESC}]0;x${BEL}` }] }] });
    expect(text).not.toMatch(/[\u001b\u0007]/);
    expect(text).toContain('SO-\\x1B[2J: unknown_order: carrier \\x1B]0;x\\x07');
  });
});
