import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, test } from 'vitest';
import { toCsvValue } from '../../src/output-files/cell-values.js';
import { formatRowIssues } from '../../src/output-files/issue-text.js';
import { generateCsv, UNPARSE_CONFIG, writePlainLine, writeResultCsv } from '../../src/output-files/write-result-csv.js';
import type { ResultRow } from '../../src/output-files/types.js';
import { cells, HEADERS, sampleInput } from '../support/result-rows.js';
import { useTempDir } from '../support/temp-dir.js';

const file = useTempDir('csv');

function parse(text: string): string[][] {
  return Papa.parse<string[]>(text.replace(/^\ufeff/, ''), { skipEmptyLines: true }).data;
}

describe('writeResultCsv', () => {
  test('starts with a UTF-8 BOM so Excel reads accents, then the input headers, status, issues and the extra columns', async () => {
    const path = file('bom.csv');
    await writeResultCsv(path, sampleInput({ extraColumns: ['httpStatus', 'requestId'] }));
    const bytes = readFileSync(path);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(parse(bytes.toString('utf8'))[0]).toEqual([...HEADERS, 'status', 'issues', 'httpStatus', 'requestId']);
  });

  test('round-trips through papaparse: one line per input row, each value as written', async () => {
    const path = file('roundtrip.csv');
    const rows: ResultRow[] = [
      { rowNumber: 2, cells: cells('A-1', { name: 'Mug, "blue"\nlarge', fullName: 'Zoë Ångström' }), status: 'accepted', issues: [], needsFix: false, extra: { httpStatus: 201, requestId: 'req-1' } },
      { rowNumber: 3, cells: cells('A-2', { unitPrice: -5, quantity: 0 }), status: 'rejected', issues: [], needsFix: true, extra: { httpStatus: 400, requestId: null } },
    ];
    await writeResultCsv(path, sampleInput({ extraColumns: ['httpStatus', 'requestId'] }, rows));
    const data = parse(readFileSync(path, 'utf8'));
    expect(data).toHaveLength(3);
    const [, first, second] = data as [string[], string[], string[]];
    expect(first[HEADERS.indexOf('name')]).toBe('Mug, "blue"\nlarge');
    expect(first[HEADERS.indexOf('fullName')]).toBe('Zoë Ångström');
    expect(first.slice(HEADERS.length)).toEqual(['accepted', '', '201', 'req-1']);
    expect(second[HEADERS.indexOf('unitPrice')]).toBe('-5');
    expect(second[HEADERS.indexOf('qty')]).toBe('0');
    expect(second.slice(HEADERS.length)).toEqual(['rejected', '', '400', '']);
  });

  test('neutralises formulas in input cells, headers and messages, but not numbers or negative numbers', async () => {
    const path = file('injection.csv');
    const rows: ResultRow[] = [
      {
        rowNumber: 2,
        cells: cells('=cmd|"/c calc"!A0', { name: '@SUM(1+1)', city: '-5', unitPrice: -5, phone: '+1-555-0134' }, '\t=1+2'),
        status: 'invalid',
        issues: [{ row: 2, column: '=evil', code: 'required', severity: 'error', message: 'x' }],
        needsFix: true,
      },
    ];
    await writeResultCsv(path, sampleInput({ headers: [...HEADERS.slice(0, -1), '+Gift note'] }, rows));
    const [header, row] = parse(readFileSync(path, 'utf8')) as [string[], string[]];
    expect(header[HEADERS.length - 1]).toBe("'+Gift note");
    expect(row[HEADERS.indexOf('Customer Order ID')]).toBe('\'=cmd|"/c calc"!A0');
    expect(row[HEADERS.indexOf('name')]).toBe("'@SUM(1+1)");
    expect(row[HEADERS.indexOf('Gift note')]).toBe("'\t=1+2");
    expect(row[HEADERS.indexOf('phone')]).toBe("'+1-555-0134");
    expect(row[HEADERS.indexOf('city')]).toBe('-5');
    expect(row[HEADERS.indexOf('unitPrice')]).toBe('-5');
    expect(row[HEADERS.length + 1]).toBe("'=evil: x");
  });

  test('writes dates as ISO 8601 in the wall-clock time of the sheet', async () => {
    const path = file('dates.csv');
    await writeResultCsv(path, sampleInput());
    const data = parse(readFileSync(path, 'utf8'));
    expect(data[1]![HEADERS.indexOf('orderDate')]).toBe('2026-11-20T14:30:00');
    expect(data[4]![HEADERS.indexOf('orderDate')]).toBe('2026-11-21');
  });

  test('writes the issues of each row, and points clean rows of a bad order at its bad rows', async () => {
    const path = file('issues.csv');
    await writeResultCsv(path, sampleInput());
    const data = parse(readFileSync(path, 'utf8'));
    const issues = data.map((r) => r[HEADERS.length + 1]);
    expect(issues.slice(1)).toEqual([
      '',
      'zip (warning): ZIP code 2134 lost its leading zero; read as "02134".',
      'zip: ZIP code "1234" must be 5 digits or ZIP+4 (12345-6789).\nfullName: fullName is required.',
      'order has errors on row 4',
    ]);
  });

  test('streams rows in batches without losing or repeating any', async () => {
    const path = file('many.csv');
    function* rows(): Generator<ResultRow> {
      for (let i = 0; i < 5001; i++) yield { rowNumber: i + 2, cells: cells(`O-${i}`), status: 'valid', issues: [], needsFix: false };
    }
    await writeResultCsv(path, sampleInput({}, rows()));
    const data = parse(readFileSync(path, 'utf8'));
    expect(data).toHaveLength(5002);
    expect(data.map((r) => r[0]).slice(1)).toEqual(Array.from({ length: 5001 }, (_, i) => `O-${i}`));
  });

  test('fails cleanly and leaves no partial file when the folder does not exist', async () => {
    const path = file('missing/folder/result.csv');
    await expect(writeResultCsv(path, sampleInput())).rejects.toThrow(/ENOENT/);
    expect(existsSync(dirname(path))).toBe(false);
    expect(readdirSync(dirname(file('x')))).not.toContain('missing');
  });
});

describe('the papaparse shortcut', () => {
  test('writes exactly what Papa.unparse writes for the same rows, tricky values included', () => {
    const tricky = [
      'plain', '', ' leading', 'trailing ', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', '\ufeffbom', '=1+2', '+1-555-0134',
      '-5', '-$1,234.50', '@x', '\tx', 'naïve café', 'a\u0000b', 'unit\u001fsep', 'x,"y"\n=z',
    ];
    const rows: ResultRow[] = tricky.map((text, i) => ({
      rowNumber: i + 2,
      cells: cells(`O-${i}`, { name: text, city: i % 2 === 0 ? text : -i, orderDate: i % 3 === 0 ? null : new Date(Date.UTC(2026, 0, 1 + i)) }),
      status: 'invalid',
      issues: [{ row: i + 2, column: text || 'name', code: 'required', severity: 'error', message: text }],
      needsFix: true,
    }));
    const input = sampleInput({ extraColumns: ['requestId'] }, rows);
    const written = [...generateCsv({ ...input, rows })].join('');
    const expected = Papa.unparse(
      [
        [...HEADERS, 'status', 'issues', 'requestId'],
        ...rows.map((r) => [...r.cells.map(toCsvValue), r.status, formatRowIssues(r), null]),
      ],
      UNPARSE_CONFIG,
    );
    expect(written).toBe(`\ufeff${expected}\r\n`);
  });
});

describe('writePlainLine', () => {
  const rows: string[][] = [
    ['SO-1', 'Ann Lee', '', '12.50', 'Zoë 東京'],
    ['SO-1', 'a, b', 'x', 'y', 'z'],
    ['SO-1', ' lead', 'x', 'y', 'z'],
    ['SO-1', 'trail ', 'x', 'y', 'z'],
    ['SO-1', '=SUM(A1)', 'x', 'y', 'z'],
    ['SO-1', '-5', '+1', '@x', '\tt'],
    ['SO-1', 'say "hi"', 'x', 'y', 'z'],
    ['SO-1', 'two\nlines', 'x', 'y', 'z'],
    ['\ufeffSO-1', 'x', 'y', 'z', 'w'],
    ['SO-1', 'x', 'y', 'z'],
    ['', '', '', '', ''],
  ];

  test('writes a row whose cells need no quoting exactly as papaparse does, and no other row', () => {
    const encoded = rows.map((row) => Papa.unparse([row], UNPARSE_CONFIG));
    const plain = rows.map((row) => writePlainLine(row, 5));
    expect(plain).toEqual([encoded[0], null, null, null, null, null, null, null, null, null, encoded[10]]);
  });
});
