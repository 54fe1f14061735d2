/** The ledger for reads and writes of the saved mappings: the one the entry point holds open for the whole run. */
import type { Ledger } from '../ledger/index.js';
import type { LedgerAccess } from './mapping-store.js';

/** A ledger the entry point opened for the whole run (import opens it once for the mappings, the run and the audit). */
export function heldOpen(ledger: Ledger): LedgerAccess {
  return { read: (read) => read(ledger), write: (write) => write(ledger) };
}
