/**
 * runReconcile as an entry point runs it: the ledger at `ledgerPath` opened once when the reconcile
 * reads one (ledgerUseOf), closed after it. `isLedgerRequired: false` is the web app's way: its server
 * holds a ledger from its start, so one is always opened.
 */
import { openLedger } from '../../src/ledger/index.js';
import { ledgerUseOf, runReconcile, type ReconcileCommandOptions } from '../../src/reconcile/run-reconcile.js';
import type { ReconcileResult } from '../../src/reconcile/reconcile-run.js';

export type ReconcileAtOptions = ReconcileCommandOptions & { isLedgerRequired?: boolean };

export async function runReconcileAt(options: ReconcileAtOptions): Promise<ReconcileResult> {
  const { isLedgerRequired, ...rest } = options;
  if (rest.ledger) return runReconcile(rest);
  if (!(isLedgerRequired === false || ledgerUseOf(rest))) return runReconcile(rest);
  const ledger = await openLedger(rest.ledgerPath, { logger: rest.logger });
  try {
    return await runReconcile({ ...rest, ledger });
  } finally {
    await ledger.close();
  }
}
