/** The ledger for a read or write of the saved mappings: opened, used and closed, or held open by the entry point. */
import { type Ledger, ledgerExists, openLedger } from '../ledger/index.js';
import type { LedgerAccess } from './mapping-store.js';

export function openedOnDemand(location: string): LedgerAccess {
  return {
    async read(read) {
      // A ledger not yet created holds no mapping, and is not created by looking.
      if (!ledgerExists(location)) return undefined;
      const ledger = await openLedger(location);
      try {
        return await read(ledger);
      } finally {
        await ledger.close();
      }
    },
    async write(write) {
      const ledger = await openLedger(location);
      try {
        return await write(ledger);
      } finally {
        await ledger.close();
      }
    },
  };
}

/** A ledger the entry point opened for the whole run (import opens it once for the mappings, the run and the audit). */
export function heldOpen(ledger: Ledger): LedgerAccess {
  return { read: (read) => read(ledger), write: (write) => write(ledger) };
}
