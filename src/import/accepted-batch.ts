/**
 * The ledger's accepted marks of a sending run, gathered into one commit: when ACCEPT_BATCH have
 * gathered, or ACCEPT_FLUSH_MS after the first of them. A mark a kill loses leaves its order
 * 'sending', which the next run looks up (found: accepted) instead of sending again.
 */
import type { AcceptedInfo } from '../ledger/types.js';
import type { SyncLedger as Ledger } from '../ledger/sync-types.js';
import type { Logger } from '../log.js';

const ACCEPT_BATCH = 64;
const ACCEPT_FLUSH_MS = 100;

export function createAcceptedBatch(ledger: Ledger, logger: Logger) {
  let batch: { customerOrderId: string; info: AcceptedInfo }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0) return;
    const marks = batch;
    batch = [];
    ledger.markAcceptedMany(marks);
  };
  // Off the answer path (after the answers now being handled), and never throwing out of a timer.
  const safeFlush = (): void => {
    try {
      flush();
    } catch (err) {
      // The orders stay 'sending': the next run looks them up rather than sending them again.
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'recording accepted orders in the ledger failed');
    }
  };
  return {
    add(customerOrderId: string, info: AcceptedInfo): void {
      batch.push({ customerOrderId, info });
      if (batch.length === ACCEPT_BATCH) setImmediate(safeFlush);
      else timer ??= setTimeout(safeFlush, ACCEPT_FLUSH_MS).unref();
    },
    flush,
  };
}
