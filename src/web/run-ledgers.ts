/**
 * The ledgers this instance's runs (web submissions, scheduled runs) send on, each opened for one run
 * and closed after it. A stop whose grace is over lets go of them all at once: closing a ledger ends its
 * open runs as a death would (on PostgreSQL their leases expire now), so another instance takes their
 * orders over at once, with the look-up before any resend, instead of after the lease.
 */
import { openLedger, type Ledger, type LedgerOptions } from '../ledger/index.js';
import type { Logger } from '../log.js';

export interface RunLedgers {
  /** Runs `work` on a ledger of its own at `location`, closed when the work ends. */
  use<T>(location: string, options: LedgerOptions, work: (ledger: Ledger) => Promise<T>): Promise<T>;
  /** Ends every run still open on them, as a kill -9 would but without waiting for a lease. */
  abandonAll(): Promise<void>;
}

export function createRunLedgers(logger: Logger): RunLedgers {
  const open = new Set<Ledger>();
  const closeQuietly = async (ledger: Ledger) => {
    open.delete(ledger);
    await ledger.close().catch((error: unknown) => logger.warn({ err: (error as Error).message }, "could not close a run's ledger"));
  };
  return {
    async use(location, options, work) {
      const ledger = await openLedger(location, { logger, ...options });
      open.add(ledger);
      try {
        return await work(ledger);
      } finally {
        if (open.has(ledger)) await closeQuietly(ledger);
      }
    },
    async abandonAll() {
      await Promise.all([...open].map(closeQuietly));
    },
  };
}
