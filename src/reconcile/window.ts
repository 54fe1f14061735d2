/**
 * Which span of tracking updates a run fetches (pure).
 *
 * The store remembers its coverage: the span [start, end] of lastUpdated instants whose packages it
 * holds, all of them. The ledger keeps a watermark: the end of the last SUCCESSFUL run's span. A run
 * whose selection starts inside the coverage fetches only from the watermark on (less an overlap
 * for clock skew and updates the API indexes late); a missed night just makes the next span longer,
 * since it starts where the last successful run ended. Anything else (no store, a store that does
 * not match the ledger's watermark, a selection reaching back before the coverage, a clock that went
 * backwards) fetches the selection's whole span again.
 */
import { parseApiInstant } from '../contract/instant.js';
import type { Coverage } from './package-store.js';
import { CANCELED_LINE_STATUS, SHIPPED_LINE_STATUS } from './types.js';

/** The ledger watermark's name. */
export const TRACKING_WATERMARK = 'reconcile.tracking';
/** 1 hour: generous against clock skew and late indexing, cheap (one more hour of updates). */
export const DEFAULT_OVERLAP_MS = 3_600_000;

/**
 * The earliest instant, on the API's clock, a package of an order can have been updated (null when
 * neither time is known). Its orderDate bounds it: the API refuses an orderDate in its own future,
 * so the order was created after it. submittedAt, when earlier, is kept as a second bound; it is on
 * this machine's clock (the run's overlap widens it by as much as this machine runs ahead), and the
 * skew when an order was accepted can differ from the skew now (a sandbox clock moved, a machine's
 * clock corrected by days), which is why it cannot be the only bound.
 */
export function earliestUpdateOf(order: { orderDate?: string | null | undefined; submittedAt?: string | null | undefined }): number | null {
  const ordered = typeof order.orderDate === 'string' ? parseApiInstant(order.orderDate) : null;
  const submitted = typeof order.submittedAt === 'string' ? parseApiInstant(order.submittedAt) : null;
  if (ordered === null || submitted === null) return ordered ?? submitted;
  return Math.min(ordered, submitted);
}

export interface WindowInput {
  /** The earliest instant a package of the selected orders can have been updated (see earliestUpdateOf), less the overlap. */
  selectionStart: Date;
  now: Date;
  coverage: Coverage | null;
  /** The ledger's watermark; null when there is no ledger or no successful run yet. */
  watermark: string | null;
  overlapMs: number;
}

export interface WindowPlan {
  startDate: string;
  endDate: string;
  isIncremental: boolean;
  /** The store's coverage once this span has been fetched in full. */
  nextCoverage: Coverage;
}

export function planTrackingWindow(input: WindowInput): WindowPlan {
  const { selectionStart, now, coverage, watermark, overlapMs } = input;
  const endMs = now.getTime();
  const endDate = now.toISOString();
  const full = (): WindowPlan => {
    const startDate = new Date(Math.min(selectionStart.getTime(), endMs)).toISOString();
    return { startDate, endDate, isIncremental: false, nextCoverage: { start: startDate, end: endDate } };
  };
  if (!coverage || watermark === null || watermark !== coverage.end) return full();
  const coveredFrom = Date.parse(coverage.start);
  const coveredTo = Date.parse(coverage.end);
  if (Number.isNaN(coveredFrom) || Number.isNaN(coveredTo) || coveredTo > endMs || coveredFrom > selectionStart.getTime()) return full();
  // Never after the end (a selection that starts after `now`: --now in the past of the ledger's
  // times): the API refuses startDate after endDate. The span is then empty, and so is what it adds.
  const startMs = Math.min(Math.max(selectionStart.getTime(), coveredTo - overlapMs), endMs);
  const startDate = new Date(startMs).toISOString();
  // Contiguous with what is stored: the coverage grows; otherwise (the selection moved past it) it restarts.
  const nextCoverage = startMs <= coveredTo ? { start: coverage.start, end: endDate } : { start: startDate, end: endDate };
  return { startDate, endDate, isIncremental: true, nextCoverage };
}

/**
 * Whether a stored order read must be read again: never read, its packages changed, or some line
 * is not yet in a final state (Shipped or Order Canceled), after which only packages change.
 */
export function needsFreshRead(stored: { read: { lineItems: { status?: string }[] } | null; status: string } | undefined, hasPackageChanges: boolean): boolean {
  if (!stored || hasPackageChanges || stored.read === null || stored.status === 'not_found') return true;
  return !stored.read.lineItems.every((l) => l.status === SHIPPED_LINE_STATUS || l.status === CANCELED_LINE_STATUS);
}
