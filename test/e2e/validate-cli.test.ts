import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE_NOW, SAMPLES, hasStackTrace, runCli, tempDir } from './run-cli.js';

interface JsonIssue { row: number | null; column: string | null; code: string; severity: string; message: string }
interface JsonOrder { customerOrderId: string | null; rows: number[]; status: string; issues: JsonIssue[] }

function codesByRow(orders: JsonOrder[]): Map<number, string[]> {
  const map = new Map<number, string[]>();
  for (const o of orders) for (const i of o.issues) if (i.row !== null) map.set(i.row, [...(map.get(i.row) ?? []), i.code]);
  return map;
}

describe('order-batch validate (end to end)', () => {
  for (const ext of ['csv', 'xlsx']) {
    it(`accepts every order of the valid ${ext} sample and writes a result workbook`, async () => {
      const dir = tempDir();
      const out = join(dir, 'result.xlsx');
      const res = await runCli(['validate', join(SAMPLES, `orders-valid.${ext}`), '--now', SAMPLE_NOW, '--json', '--out', out]);
      expect(res.stderr).not.toMatch(/error/i);
      expect(res.code).toBe(0);
      const report = JSON.parse(res.stdout);
      expect(report.command).toBe('validate');
      expect(report.summary).toEqual({ valid: 8 });
      expect(report.input[0].rows).toBe(12);
      expect(report.input[0].sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(report.output).toBe(out);
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.readFile(out);
      expect(wb.worksheets.map((w) => w.name)).toEqual(expect.arrayContaining(['Results', 'Summary', 'Fix']));
      const results = wb.getWorksheet('Results')!;
      const header = (results.getRow(1).values as unknown[]).slice(1);
      expect(header).toContain('status');
      expect(header).toContain('issues');
      const statusCol = header.indexOf('status') + 1;
      for (let r = 2; r <= 13; r++) expect(results.getRow(r).getCell(statusCol).value).toBe('valid');
      // Computed totals are announced as warnings on the order that left them blank.
      const computed = report.orders.find((o: JsonOrder) => o.customerOrderId === 'SO-10004');
      expect(computed.issues.map((i: JsonIssue) => i.code)).toContain('computed_total');
    });

    it(`points at every typical mistake of the ${ext} sample with its row and column`, async () => {
      const dir = tempDir();
      const res = await runCli(['validate', join(SAMPLES, `orders-with-mistakes.${ext}`), '--now', SAMPLE_NOW, '--json', '--out', join(dir, 'r.xlsx')]);
      expect(res.code).toBe(1);
      const report = JSON.parse(res.stdout);
      const byRow = codesByRow(report.orders);
      expect(byRow.get(2)).toContain('postal_code_padded');
      expect(byRow.get(3)).toEqual(expect.arrayContaining(['invalid_email', 'invalid_phone']));
      expect(byRow.get(4)).toEqual(expect.arrayContaining(['order_date_too_old', 'not_allowed']));
      expect(byRow.get(5)).toEqual(expect.arrayContaining(['duplicate_line_item_id', 'conflicting_order_value']));
      expect(byRow.get(6)).toEqual(expect.arrayContaining(['duplicate_line_item_id', 'not_positive', 'conflicting_order_value']));
      expect(byRow.get(7)).toContain('required');
      expect(byRow.get(8)).toEqual(['computed_total', 'computed_total']); // out of stock, but only the API knows
      expect(byRow.get(11)).toContain('invalid_postal_code');
      expect(byRow.get(12)).toContain('subtotal_mismatch');
      expect(byRow.get(9)).toContain('scientific_notation');
      expect(byRow.get(10)).toContain('not_allowed');
      expect(report.input[0].issues.map((i: JsonIssue) => i.code)).toContain('unknown_column');
      const carrier = report.orders.flatMap((o: JsonOrder) => o.issues).find((i: JsonIssue) => i.row === 4 && i.code === 'not_allowed');
      expect(carrier.message).toContain('CarrierXGround');
      expect(report.summary.valid).toBe(2); // SO-20001 (padded ZIP, a warning) and SO-20005 (stock is only known online)
    });
  }

  it('reads a result workbook back from its Fix sheet: only the orders to correct, same problems', async () => {
    const dir = tempDir();
    const first = join(dir, 'first.xlsx');
    const res = await runCli(['validate', join(SAMPLES, 'orders-with-mistakes.csv'), '--now', SAMPLE_NOW, '--json', '--out', first]);
    const firstReport = JSON.parse(res.stdout);
    const again = await runCli(['validate', first, '--now', SAMPLE_NOW, '--json', '--out', join(dir, 'second.xlsx')]);
    expect(again.code).toBe(1);
    const report = JSON.parse(again.stdout);
    expect(report.summary).toEqual({ invalid: firstReport.summary.invalid });
    const codes = (r: { orders: JsonOrder[] }) => r.orders.flatMap((o) => o.issues.filter((i) => i.severity === 'error').map((i) => i.code)).sort();
    expect(codes(report)).toEqual(codes(firstReport));
  });

  it('evaluates the 30-day window as of --now, not the wall clock', async () => {
    const dir = tempDir();
    const res = await runCli(['validate', join(SAMPLES, 'orders-valid.csv'), '--now', '2027-11-20T12:00:00Z', '--json', '--out', join(dir, 'r.csv')]);
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout);
    expect(report.summary).toEqual({ invalid: 8 });
    expect(report.orders.every((o: JsonOrder) => o.issues.some((i) => i.code === 'order_date_too_old'))).toBe(true);
  });

  it('writes a CSV result that neutralises formulas and keeps the input columns', async () => {
    const dir = tempDir();
    const input = join(dir, 'in.csv');
    const text = readFileSync(join(SAMPLES, 'orders-valid.csv'), 'utf8').replace('Maria Lopez', '"=HYPERLINK(""http://x"",""y"")"');
    writeFileSync(input, text);
    const out = join(dir, 'out.csv');
    const res = await runCli(['validate', input, '--now', SAMPLE_NOW, '--out', out]);
    expect(res.code).toBe(0);
    const rows = Papa.parse<string[]>(readFileSync(out, 'utf8').replace(/^\ufeff/, ''), { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual(expect.arrayContaining(['customerOrderId', 'status', 'issues']));
    expect(rows.length).toBe(13);
    const nameCol = rows[0]!.indexOf('fullName');
    expect(rows[1]![nameCol]!.startsWith('=')).toBe(false);
    expect(rows[1]![nameCol]).toContain('HYPERLINK');
  });

  it('prints a human summary with the result path when --json is not given', async () => {
    const dir = tempDir();
    const out = join(dir, 'r.xlsx');
    const res = await runCli(['validate', join(SAMPLES, 'orders-with-mistakes.csv'), '--now', SAMPLE_NOW, '--out', out]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('Result: ' + out);
    expect(res.stdout).toMatch(/row 3, email: /);
    expect(existsSync(out)).toBe(true);
  });

  describe('unusable input: one line naming the file, exit 2, never a stack trace', () => {
    const cases: [string, (dir: string) => string, RegExp][] = [
      ['a missing file', (dir) => join(dir, 'nope.csv'), /nope\.csv/],
      ['an empty file', (dir) => { const p = join(dir, 'empty.csv'); writeFileSync(p, ''); return p; }, /empty\.csv/],
      ['a header without rows', (dir) => { const p = join(dir, 'header.csv'); writeFileSync(p, 'customerOrderId,orderDate\n'); return p; }, /header\.csv/],
      ['a PDF named .csv', (dir) => { const p = join(dir, 'scan.csv'); writeFileSync(p, '%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n'); return p; }, /scan\.csv/],
      ['a truncated xlsx', (dir) => { const p = join(dir, 'cut.xlsx'); writeFileSync(p, readFileSync(join(SAMPLES, 'orders-valid.xlsx')).subarray(0, 3000)); return p; }, /cut\.xlsx/],
      ['a legacy .xls', (dir) => { const p = join(dir, 'old.xls'); writeFileSync(p, Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0])); return p; }, /old\.xls/],
      ['a cell over the size limit', (dir) => { const p = join(dir, 'long-cell.csv'); writeFileSync(p, `customerOrderId,name\nSO-1,${'x'.repeat(1024 * 1024 + 1)}\n`); return p; }, /long-cell\.csv: row 2, column B holds a cell of more than 1,048,576 characters/],
    ];
    for (const [name, make, mention] of cases) {
      it(`reports ${name}`, async () => {
        const dir = tempDir();
        const file = make(dir);
        const res = await runCli(['validate', file, '--now', SAMPLE_NOW]);
        expect(res.code).toBe(2);
        const text = res.stdout + res.stderr;
        expect(text).toMatch(mention);
        // The message names the file once: the report does not put it before a message that starts with it.
        expect(text.split(file).length - 1).toBe(1);
        expect(hasStackTrace(text)).toBe(false);
      });
    }
  });

  it('refuses bad flags with exit 2', async () => {
    const res = await runCli(['validate', join(SAMPLES, 'orders-valid.csv'), '--now', 'yesterday']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--now');
    const zone = await runCli(['validate', join(SAMPLES, 'orders-valid.csv'), '--timezone', 'Mars/Olympus']);
    expect(zone.code).toBe(2);
  });
});

describe('order-batch validate stopped by a signal while it writes its result', () => {
  it('exits 143 and leaves no half-written .partial file beside the result', async () => {
    const { spawn } = await import('node:child_process');
    const { readdirSync } = await import('node:fs');
    const { CLI, ROOT, cleanEnv } = await import('./run-cli.js');
    const { writeOrdersCsv } = await import('./make-sheet.js');
    const dir = tempDir();
    const input = join(dir, 'big.csv');
    writeOrdersCsv(input, { orders: 15_000, prefix: 'SIG', orderDate: new Date(Date.now() - 3_600_000) });
    const child = spawn(process.execPath, [CLI, 'validate', input, '--out', join(dir, 'big.result.xlsx')], { cwd: ROOT, env: cleanEnv({}), stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const partials = () => readdirSync(dir).filter((f) => f.endsWith('.partial'));
    // Stopped once the result is being written: its temporary file is there.
    let sent = false;
    while (!sent && child.exitCode === null) {
      if (partials().length > 0) sent = child.kill('SIGTERM');
      else await new Promise((r) => setTimeout(r, 5));
    }
    const code = await exited;
    expect(sent).toBe(true);
    expect(code).toBe(143);
    expect(partials()).toEqual([]);
    expect(existsSync(join(dir, 'big.result.xlsx'))).toBe(false);
  }, 60_000);
});
