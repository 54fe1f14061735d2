/**
 * runImport as an entry point runs it: the ledger at `ledgerPath` opened once for the run (with the
 * run's claim lease and outage when a test gives them) and closed after it; a ledger the test holds is
 * used and left open.
 */
import { openLedger, type Ledger } from '../../src/ledger/index.js';
import { runImport, type ImportOptions, type ImportResult } from '../../src/import/run-import.js';

export type ImportAtOptions = Omit<ImportOptions, 'ledger'> & { ledger?: Ledger; claimLeaseMs?: number; ledgerOutageMs?: number };

export async function runImportAt(options: ImportAtOptions): Promise<ImportResult> {
  if (options.ledger) return runImport({ ...options, ledger: options.ledger });
  const ledger = await openLedger(options.ledgerPath, {
    logger: options.logger,
    ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}),
    ...(options.ledgerOutageMs !== undefined ? { outageMs: options.ledgerOutageMs } : {}),
  });
  try {
    return await runImport({ ...options, ledger });
  } finally {
    // A ledger the run lost is said in its result; closing it again says nothing new.
    await ledger.close().catch(() => undefined);
  }
}
