/** A password in FULFILLMENT_BASE_URL (`http://user:pass@host`) never reaches the output, the result file, the log or the ledger. */
import ExcelJS from 'exceljs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { writeOrdersCsv } from './make-sheet.js';
import { runCli, tempDir } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

let sandbox: SandboxProcess | undefined;

/** Every cell of every sheet of a workbook, as text. */
async function workbookText(path: string): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const cells: string[] = [];
  workbook.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => void cells.push(String(cell.value)))));
  return cells.join('\n');
}
afterEach(async () => {
  await sandbox?.stop();
});

it('keeps the password of FULFILLMENT_BASE_URL out of the report, the log and the ledger, also of a ledger that stored one', async () => {
  sandbox = await startSandboxProcess();
  const dir = tempDir();
  const sheet = join(dir, 'orders.csv');
  writeOrdersCsv(sheet, { orders: 3, prefix: 'SEC', orderDate: new Date(Date.now() - 3_600_000) });
  const ledgerPath = join(dir, 'ledger.db');
  const withPassword = sandbox.url.replace('http://', 'http://ops:hunter2@');
  // A ledger written before addresses were kept without their password.
  const old = await openLedger(ledgerPath);
  await old.setSetting('endpoint', withPassword);
  await old.close();

  const out = join(dir, 'result.xlsx');
  const result = await runCli(['import', sheet, '--ledger', ledgerPath, '--out', out, '--log-level', 'debug'], {
    env: { ...sandbox.env, FULFILLMENT_BASE_URL: withPassword },
  });
  expect(result.code).toBe(0);
  const summary = await workbookText(out);
  expect(summary).toContain(`Sent to ${sandbox.url.replace('http://', 'http://ops:***@')}.`);
  expect(result.stdout + result.stderr + summary).not.toContain('hunter2');
  const ledger = await openLedger(ledgerPath);
  expect(await ledger.getSetting('endpoint')).toBe(sandbox.url.replace('http://', 'http://ops:***@'));
  await ledger.close();
});
