/**
 * `npm start`: the whole loop on the embedded sandbox, in a folder of its own (demo-output/):
 * import the samples, move the sandbox clock so the orders ship, reconcile, say where the
 * workbooks are. The samples' orders were placed 2026-11-16..19, so the demo runs as of
 * 2026-11-20 12:00 UTC (the sandbox clock starts there): it works whatever today's date is.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { connect } from '../connection/connect.js';
import { runImport } from '../import/run-import.js';
import { runReconcile } from '../reconcile/run-reconcile.js';

export const SAMPLES_AS_OF = new Date('2026-11-20T12:00:00Z');

export interface DemoResult {
  importSummary: Record<string, number>;
  importResults: string[];
  reconcileSummary: Record<string, number>;
  workbook: string;
  confirmations: string;
}

/** `openLedger`: the entry point's, called once, for the fresh ledger in the demo's folder. */
export async function runDemo(options: { samplesDir: string; outDir: string; logger: Logger; print: (line: string) => void; openLedger: (path: string) => Promise<Ledger> }): Promise<DemoResult> {
  const outDir = resolve(options.outDir);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const ledgerPath = join(outDir, 'ledger.db');
  const ledger = await options.openLedger(ledgerPath);
  try {
    return await demoOn(ledger, ledgerPath, outDir, options);
  } finally {
    await ledger.close();
  }
}

async function demoOn(ledger: Ledger, ledgerPath: string, outDir: string, options: Parameters<typeof runDemo>[0]): Promise<DemoResult> {
  const connection = await connect({
    connection: { auth: 'oauth' },
    useSandbox: true,
    sandboxStart: SAMPLES_AS_OF,
    concurrency: 8,
    logger: options.logger,
  });
  const { print } = options;
  try {
    print(`Embedded sandbox at ${connection.baseUrl}, clock at ${SAMPLES_AS_OF.toISOString()}.`);
    const files = [join(options.samplesDir, 'orders-valid.xlsx'), join(options.samplesDir, 'orders-with-mistakes.csv')];
    const imported = await runImport({
      files,
      out: outDir,
      context: { now: SAMPLES_AS_OF, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      connection: { auth: 'oauth' },
      useSandbox: true,
      concurrency: 8,
      maxAttempts: 6,
      dryRun: false,
      ledgerPath,
      ledger,
      logger: options.logger,
      connectionOverride: connection,
    });
    print(`1. import ${files.map((f) => f.split('/').pop()).join(' and ')}: ${formatCounts(imported.report.summary)}`);
    const outputs = Array.isArray(imported.report.output) ? imported.report.output : imported.report.output ? [imported.report.output] : [];
    for (const out of outputs) print(`   result: ${out}`);

    const movedTo = await connection.advanceSandboxClock?.(96);
    print(`2. sandbox clock moved 96 hours, to ${movedTo?.toISOString()}: orders clear, ship, some split, some are delivered.`);

    const confirmations = join(outDir, 'confirmations.csv');
    const reconciled = await runReconcile({
      connection: { auth: 'oauth' },
      useSandbox: true,
      ledgerPath,
      ledger,
      now: SAMPLES_AS_OF,
      isNowPinned: false,
      out: join(outDir, 'reconciliation.xlsx'),
      confirmationsPath: confirmations,
      concurrency: 8,
      maxAttempts: 6,
      lateAfterDays: 3,
      logger: options.logger,
      connectionOverride: connection,
    });
    reconciled.release();
    print(`3. reconcile: ${formatCounts(reconciled.report.summary)}`);
    print(`   workbook: ${reconciled.output}`);
    print(`   confirmations for the marketplaces: ${confirmations}`);
    print('Open the workbooks in Excel or LibreOffice; run the same steps yourself with the commands in the README.');
    return {
      importSummary: imported.report.summary,
      importResults: outputs,
      reconcileSummary: reconciled.report.summary,
      workbook: reconciled.output,
      confirmations,
    };
  } finally {
    await connection.close();
  }
}

function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
}
