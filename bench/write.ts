/**
 * How fast the result writers go on synthetic rows shaped like a real order sheet (30 columns, a
 * few bad cells). `node --expose-gc dist-bench/bench/write.js [rows]` prints the figures; measureWriters
 * returns them for the benchmark suite.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Issue } from '../src/issues/index.js';
import { writeResultCsv } from '../src/output-files/write-result-csv.js';
import { writeResultXlsx } from '../src/output-files/write-result-xlsx.js';
import type { ResultRow, ResultSheetInput } from '../src/output-files/types.js';
import { COLUMNS } from '../src/sheet/columns.js';
import type { CellValue } from '../src/sheet/types.js';

export interface WriterTimings {
  rows: number;
  csvMs: number;
  /** CPU time of the process (all threads) during the CSV write: the figure that holds on a busy machine. */
  csvCpuMs: number;
  csvBytes: number;
  xlsxMs: number;
  xlsxCpuMs: number;
  xlsxBytes: number;
  /** Peak RSS seen during the XLSX write (sampled), in MB. */
  xlsxPeakRssMb: number;
}

const ORDER_DATE = new Date(Date.UTC(2026, 10, 20, 14, 30));

function syntheticCells(i: number): CellValue[] {
  const order = `SO-${Math.floor(i / 2)}`;
  return COLUMNS.map((c): CellValue => {
    switch (c.field) {
      case 'customerOrderId':
        return order;
      case 'orderDate':
        return ORDER_DATE;
      case 'quantity':
        return 1 + (i % 3);
      case 'unitPrice':
        return 19.99;
      case 'salesTax':
        return 1.5;
      case 'customerLineItemId':
        return String(1 + (i % 2));
      case 'postalOrZipCode':
        return '02134';
      case 'phone':
        return '+1 617 555 0134';
      case 'addressLine2':
      case 'addressLine3':
      case 'shippingAccountNumber':
      case 'shipLabelNameDisplay':
      case 'shippingContactName':
      case 'shippingContactPhoneNumber':
      case 'requestedDeliveryDate':
        return null;
      default:
        return c.example === '' ? null : c.example;
    }
  });
}

const ZIP = COLUMNS.findIndex((c) => c.field === 'postalOrZipCode');

/** One row in 50 has a bad ZIP code; its order's other row points at it. */
export function* syntheticRows(count: number): Generator<ResultRow> {
  for (let i = 0; i < count; i++) {
    const bad = i % 50 === 0;
    const issues: Issue[] = bad
      ? [{ row: i + 2, column: 'postalOrZipCode', code: 'invalid_postal_code', severity: 'error', message: 'ZIP code "1234" must be 5 digits or ZIP+4 (12345-6789).', colIndex: ZIP }]
      : [];
    const row: ResultRow = { rowNumber: i + 2, cells: syntheticCells(i), status: bad || i % 50 === 1 ? 'invalid' : 'valid', issues, needsFix: bad || i % 50 === 1 };
    if (i % 50 === 1) row.relatedErrorRows = [i + 1];
    yield row;
  }
}

function syntheticInput(rows: number): ResultSheetInput {
  return {
    headers: COLUMNS.map((c) => c.field),
    headerRow: 1,
    columns: COLUMNS.map((c) => c.field),
    extraColumns: [],
    fileIssues: [],
    rows: syntheticRows(rows),
    summary: {
      command: 'validate',
      file: 'synthetic.csv',
      sha256: '0'.repeat(64),
      generatedAt: ORDER_DATE,
      rows,
      orders: Math.ceil(rows / 2),
      counts: { valid: rows / 2 - rows / 50, invalid: rows / 50 },
      issueCounts: { invalid_postal_code: Math.ceil(rows / 50) },
      notes: [],
    },
  };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Milliseconds to write `rows` result rows as CSV, and as XLSX (`xlsxRows`, default the same). */
export async function measureWriters(rows: number, xlsxRows: number = rows): Promise<WriterTimings> {
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-bench-'));
  try {
    const csvPath = join(dir, 'result.csv');
    let cpu = process.cpuUsage();
    let start = performance.now();
    await writeResultCsv(csvPath, syntheticInput(rows));
    const csvMs = performance.now() - start;
    const csvCpuMs = cpuMsSince(cpu);

    const xlsxPath = join(dir, 'result.xlsx');
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    cpu = process.cpuUsage();
    start = performance.now();
    await writeResultXlsx(xlsxPath, syntheticInput(xlsxRows));
    const xlsxMs = performance.now() - start;
    const xlsxCpuMs = cpuMsSince(cpu);
    clearInterval(sampler);
    return {
      rows,
      csvMs,
      csvCpuMs,
      csvBytes: statSync(csvPath).size,
      xlsxMs,
      xlsxCpuMs,
      xlsxBytes: statSync(xlsxPath).size,
      xlsxPeakRssMb: Math.round(peak / 1e6),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const csvRows = Number(process.argv[2] ?? 1_000_000);
  const xlsxRows = Number(process.argv[3] ?? 100_000);
  const t = await measureWriters(csvRows, xlsxRows);
  const rate = (n: number, ms: number): string => `${Math.round(n / (ms / 1000)).toLocaleString('en-US')} rows/s`;
  console.log(
    `csv : ${csvRows.toLocaleString('en-US')} rows in ${Math.round(t.csvMs)} ms wall (${rate(csvRows, t.csvMs)}), ` +
      `${Math.round(t.csvCpuMs)} ms CPU (${rate(csvRows, t.csvCpuMs)}), ${(t.csvBytes / 1e6).toFixed(1)} MB`,
  );
  console.log(
    `xlsx: ${xlsxRows.toLocaleString('en-US')} rows in ${Math.round(t.xlsxMs)} ms wall (${rate(xlsxRows, t.xlsxMs)}), ` +
      `${Math.round(t.xlsxCpuMs)} ms CPU, ${(t.xlsxBytes / 1e6).toFixed(1)} MB, peak RSS ${t.xlsxPeakRssMb} MB`,
  );
}
