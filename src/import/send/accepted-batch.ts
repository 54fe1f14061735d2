/**
 * The ledger's accepted marks of a sending run, gathered into one commit: when ACCEPT_BATCH have
 * gathered, or ACCEPT_FLUSH_MS after the first of them. A mark a kill loses leaves its order
 * 'sending', which the next run looks up (found: accepted) instead of sending again.
 */
import { type AcceptedInfo, type LedgerRun } from '../../ledger/index.js';
import type { Logger } from '../../log.js';

const ACCEPT_BATCH = 64;
const ACCEPT_FLUSH_MS = 100;

export function createAcceptedBatch(run: LedgerRun, logger: Logger) {
  let batch: { customerOrderId: string; info: AcceptedInfo }[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** Commits on their way to the ledger: the last flush waits for them. */
  const inFlight = new Set<Promise<void>>();
  const flush = async (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (batch.length > 0) {
      const marks = batch;
      batch = [];
      const commit = run.markAcceptedMany(marks);
      inFlight.add(commit);
      try {
        await commit;
      } finally {
        inFlight.delete(commit);
      }
    }
  };
  // Off the answer path (after the answers now being handled), and never throwing out of a timer.
  const safeFlush = (): void => {
    flush().catch((err: unknown) => {
      // The orders stay 'sending': the next run looks them up rather than sending them again.
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'recording accepted orders in the ledger failed');
    });
  };
  return {
    add(customerOrderId: string, info: AcceptedInfo): void {
      batch.push({ customerOrderId, info });
      if (batch.length === ACCEPT_BATCH) setImmediate(safeFlush);
      else timer ??= setTimeout(safeFlush, ACCEPT_FLUSH_MS).unref();
    },
    /** Commits what has gathered, after the commits already under way; throws when this one fails. */
    async flush(): Promise<void> {
      const earlier = [...inFlight];
      await flush();
      await Promise.allSettled(earlier);
    },
  };
}
