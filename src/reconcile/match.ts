/**
 * Reconciles one order: what we sent (the ledger; for an order it lacks, the --orders file that lists
 * it), what the API holds (order read) and what it shipped (packages). Pure: the clock and the late
 * threshold are handed in.
 *
 * Roll-up status, first match wins:
 *   not_found          we sent it (the ledger or an --orders file says so), the API does not know it (404);
 *   exception          any exception other than replaced_package (the network re-shipped; a line
 *                      it added to record that is folded into the replaced_package exception),
 *                      and other than canceled_line when every line is canceled;
 *   canceled           every line canceled;
 *   delivered          every line not canceled fully shipped and delivered;
 *   shipped            every line not canceled fully shipped;
 *   partially_shipped  some units shipped;
 *   waiting            nothing shipped yet.
 *
 * Exceptions:
 *   late_shipment           units of a line not canceled still unshipped more than lateAfterDays after the order date;
 *   canceled_line           a line canceled, wholly or in part (units the network booked on a canceled line it added);
 *   partial_shipment        a line marked Shipped whose live packages hold fewer units than ordered less those
 *                           canceled; the API holding fewer units of a line than were sent; a line sent that the
 *                           API's order lacks;
 *   over_shipment           more units in live packages than ordered; units of a canceled line; an item for a line
 *                           the order does not have;
 *   replaced_package        a package replaced, with its chain and the live package that ends it;
 *   unexpected_disposition  a line of an api order with a disposition other than api_order; an order we sent that
 *                           comes back with an order disposition other than api;
 *   unknown_order           an api order (or packages of one) the ledger has no record of sending;
 *   missing_order           an order the ledger holds (or an --orders file lists as sent) that the API answers 404 for;
 *   amount_mismatch         read-side amounts other than PRODUCT.md section 6 says (amounts.ts).
 */
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import { checkReadAmounts } from './amounts.js';
import { describeDisposition } from './dispositions.js';
import { countUnits, isCanceledLine, isLineToShip, linesExplainedByReplacement, mergeLines, unitsToShip, type StrayItem } from './lines.js';
import { resolvePackages } from './packages.js';
import {
  API_LINE_DISPOSITION,
  API_ORDER_DISPOSITION,
  SHIPPED_LINE_STATUS,
  type ExpectedOrder,
  type ReconcileException,
  type ReconciledLine,
  type ReconciledOrder,
  type ReconciledPackage,
  type RollUpStatus,
} from './types.js';

const DAY_MS = 86_400_000;

export interface ReconcileOrderInput {
  /** What we sent (from the ledger, or the --orders file that lists the order); absent when neither says. */
  expected?: ExpectedOrder;
  /** The API's order: null when it answered 404, undefined when it was not read. */
  read?: OrderRead | null;
  packages: readonly PackageRecord[];
  now: Date;
  /** Units still unshipped this many days after the order date are late. */
  lateAfterDays: number;
  /** False when no ledger was consulted (e.g. --all without one): then an order missing from it is not unknown. Default true. */
  isLedgerConsulted?: boolean;
  /** Needed only when neither expected, read nor a package names the order. */
  customerOrderId?: string;
  /**
   * The selection says we sent it though the ledger holds no record (an order an --orders result
   * file lists as accepted): a 404 then makes it not_found too, not an order of nobody's.
   */
  isListedAsSent?: boolean;
  /** The --orders file has no status column: it lists the order, without saying it was accepted. */
  isListedWithoutStatus?: boolean;
}

function units(n: number): string {
  return `${n} unit${n === 1 ? '' : 's'}`;
}

function lineLabel(line: ReconciledLine): string {
  return `line ${line.customerLineItemId} (${line.productId})`;
}

function exception(type: ReconcileException['type'], detail: string, extra: Partial<ReconcileException> = {}): ReconcileException {
  return { type, detail, ...extra };
}

/** "line 3-R1: damaged_shipment (...)"; for a re-shipment that cannot be told apart, "one of line 3-R1, line 3-R2: damaged_shipment (...)". */
function recordedAs(group: readonly ReconciledLine[]): string {
  const why = (l: ReconciledLine) => (l.disposition ? `: ${describeDisposition(l.disposition)}` : '');
  if (group.length === 1) return `line ${group[0]!.customerLineItemId}${why(group[0]!)}`;
  if (group.every((l) => l.disposition === group[0]!.disposition)) return `one of ${group.map((l) => `line ${l.customerLineItemId}`).join(', ')}${why(group[0]!)}`;
  return `one of ${group.map((l) => `line ${l.customerLineItemId}${why(l)}`).join(', ')}`;
}

function replacementExceptions(packages: readonly ReconciledPackage[], recordedBy: ReadonlyMap<string, readonly (readonly ReconciledLine[])[]>): ReconcileException[] {
  const byId = new Map(packages.map((p) => [p.packageId, p]));
  return packages
    .filter((p) => !p.isLive)
    .map((p) => {
      const tracking = p.trackingNumber ? ` (tracking ${p.trackingNumber})` : '';
      const when = p.dateReplaced ? ` on ${p.dateReplaced}` : '';
      const next = p.replacedByPackageId ? byId.get(p.replacedByPackageId) : undefined;
      let detail = `Package ${p.packageId}${tracking} was replaced${when}`;
      if (!p.replacedByPackageId) detail += '; the API names no replacement package.';
      else if (!next) detail += ` by package ${p.replacedByPackageId}, which the API does not show yet.`;
      else detail += ` by package ${next.packageId}${next.trackingNumber ? ` (tracking ${next.trackingNumber})` : ''}.`;
      if (p.chainEnd === 'loop') detail += ' The replacement chain loops; no live package ends it.';
      else if (p.chainEnd === 'missing' && next) detail += ' The end of its replacement chain is not visible yet.';
      else if (p.livePackageId && p.livePackageId !== next?.packageId) detail += ` Live package at the end of the chain: ${p.livePackageId}.`;
      const groups = recordedBy.get(p.packageId) ?? [];
      if (groups.length > 0) detail += ` The network recorded it as ${groups.map(recordedAs).join('; ')}.`;
      return exception('replaced_package', detail, { packageId: p.packageId });
    });
}

function canceledLineException(line: ReconciledLine, lines: readonly ReconciledLine[]): ReconcileException | null {
  const id = line.customerLineItemId;
  const why = (l: ReconciledLine) => (l.disposition && l.disposition !== API_LINE_DISPOSITION ? `: ${describeDisposition(l.disposition)}` : '');
  if (!line.isAddedByNetwork) {
    // The network explains a cancellation with a canceled line of its own: report both as one.
    const explaining = lines.find((l) => l.isAddedByNetwork && l.relatedLineId === id && isCanceledLine(l) && l.disposition);
    const reason = explaining ? `${why(explaining)} (line ${explaining.customerLineItemId})` : why(line);
    const added = lines.filter((l) => l.isAddedByNetwork && l.relatedLineId === id && isLineToShip(l));
    const instead = added.length > 0 ? ` The network added ${added.map((l) => `line ${l.customerLineItemId}`).join(', ')} for the same product.` : '';
    return exception('canceled_line', `${lineLabel(line)}, ${units(line.ordered)}, was canceled${reason}.${instead}`, { customerLineItemId: id });
  }
  const related = lines.find((l) => !l.isAddedByNetwork && l.customerLineItemId === line.relatedLineId);
  if (related && isCanceledLine(related)) return null;
  if (related) {
    return exception('canceled_line', `${units(line.ordered)} of the ${related.ordered} of ${lineLabel(related)} canceled${why(line)} (line ${id}).`, {
      customerLineItemId: related.customerLineItemId,
    });
  }
  return exception('canceled_line', `${lineLabel(line)}, ${units(line.ordered)}, added by the network, was canceled${why(line)}.`, { customerLineItemId: id });
}

function lineExceptions(lines: readonly ReconciledLine[], isApiOrder: boolean, explained: ReadonlySet<ReconciledLine>): ReconcileException[] {
  const out: ReconcileException[] = [];
  for (const line of lines) {
    const id = { customerLineItemId: line.customerLineItemId };
    if (isCanceledLine(line)) {
      const canceled = canceledLineException(line, lines);
      if (canceled) out.push(canceled);
      if (line.shipped > 0) out.push(exception('over_shipment', `${lineLabel(line)} is canceled, yet live packages hold ${units(line.shipped)} of it.`, id));
      continue;
    }
    if (isApiOrder && line.disposition && line.disposition !== API_LINE_DISPOSITION && !explained.has(line)) {
      const origin = line.isAddedByNetwork ? 'was added by the network with' : 'carries';
      const about = line.relatedLineId ? ` for line ${line.relatedLineId}` : '';
      out.push(exception('unexpected_disposition', `${lineLabel(line)}, ${units(line.ordered)}, ${origin} disposition ${describeDisposition(line.disposition)}${about}.`, id));
    }
    const toShip = unitsToShip(line);
    const canceledNote = line.canceledUnits > 0 ? ` (${line.canceledUnits} canceled)` : '';
    if (line.isMissingFromApi) {
      out.push(exception('partial_shipment', `${lineLabel(line)}, ${units(line.ordered)}, is not in the API's order.`, id));
    } else if (!line.isBundle && line.shipped > toShip) {
      out.push(exception('over_shipment', `${lineLabel(line)}: live packages hold ${units(line.shipped)}, ${toShip} ordered${canceledNote}.`, id));
    } else if (isLineToShip(line) && line.status === SHIPPED_LINE_STATUS && line.shipped < toShip) {
      // Units the network canceled (a canceled line it added for them) are not owed: compare with what is left to ship.
      out.push(exception('partial_shipment', `${lineLabel(line)} is marked Shipped, but live packages hold ${line.shipped} of the ${units(line.ordered)} ordered${canceledNote}.`, id));
    }
  }
  return out;
}

function quantityExceptions(expected: ExpectedOrder | undefined, read: OrderRead | null | undefined): ReconcileException[] {
  if (!expected || !read) return [];
  const out: ReconcileException[] = [];
  for (const sent of expected.lines) {
    const shown = read.lineItems.find((l) => l.customerLineItemId === sent.customerLineItemId && l.productId === sent.productId);
    if (shown && shown.quantity < sent.quantity) {
      out.push(exception('partial_shipment', `line ${sent.customerLineItemId} (${sent.productId}): the API holds ${shown.quantity} of the ${units(sent.quantity)} sent.`, { customerLineItemId: sent.customerLineItemId }));
    }
  }
  return out;
}

function strayExceptions(strays: readonly StrayItem[]): ReconcileException[] {
  return strays.map(({ packageId, item }) =>
    exception('over_shipment', `Package ${packageId} holds ${units(item.quantity)} of ${item.productId} for line ${item.customerLineItemId}, which the order does not have.`, {
      packageId,
      customerLineItemId: item.customerLineItemId,
    }),
  );
}

function lateExceptions(lines: readonly ReconciledLine[], orderDate: string | null, now: Date, lateAfterDays: number): ReconcileException[] {
  const orderMs = orderDate ? Date.parse(orderDate) : Number.NaN;
  if (Number.isNaN(orderMs)) return [];
  const ageDays = (now.getTime() - orderMs) / DAY_MS;
  if (ageDays <= lateAfterDays) return [];
  return lines
    .filter((l) => isLineToShip(l) && l.shipped < unitsToShip(l))
    .map((l) =>
      exception('late_shipment', `${lineLabel(l)}: ${unitsToShip(l) - l.shipped} of ${units(l.ordered)} not shipped ${ageDays.toFixed(1)} days after the order date (limit ${lateAfterDays}).`, {
        customerLineItemId: l.customerLineItemId,
      }),
    );
}

function rollUp(lines: readonly ReconciledLine[], exceptions: readonly ReconcileException[], isNotFound: boolean): RollUpStatus {
  if (isNotFound) return 'not_found';
  const active = lines.filter(isLineToShip);
  const isAllCanceled = lines.length > 0 && lines.every(isCanceledLine);
  const isBlocking = (e: ReconcileException) => e.type !== 'replaced_package' && !(isAllCanceled && e.type === 'canceled_line');
  if (exceptions.some(isBlocking)) return 'exception';
  if (isAllCanceled) return 'canceled';
  if (active.length > 0 && active.every((l) => l.shipped >= unitsToShip(l) && l.delivered >= unitsToShip(l))) return 'delivered';
  if (active.length > 0 && active.every((l) => l.shipped >= unitsToShip(l))) return 'shipped';
  if (active.some((l) => l.shipped > 0)) return 'partially_shipped';
  return 'waiting';
}

export function reconcileOrder(input: ReconcileOrderInput): ReconciledOrder {
  const { expected, read, now, lateAfterDays } = input;
  const customerOrderId = expected?.customerOrderId ?? read?.customerOrderId ?? input.packages[0]?.customerOrderId ?? input.customerOrderId ?? '';
  const resolved = resolvePackages(input.packages);
  // An --orders file that cannot say which lines were sent: the API's lines are taken as they are.
  const sent = expected?.hasLines === false ? undefined : expected;
  const isFromLedger = expected !== undefined && expected.source !== 'orders-file';
  const { lines, strays } = countUnits(mergeLines(sent, read), resolved.live);
  const orderDisposition = read?.disposition ?? null;
  const isApiOrder = orderDisposition === null || orderDisposition === API_ORDER_DISPOSITION;
  const isNotFound = read === null && (expected !== undefined || input.isListedAsSent === true);
  const exceptions: ReconcileException[] = [];

  if (isNotFound) {
    const when = expected?.submittedAt ? ` accepted on ${expected.submittedAt}` : ' accepted';
    const source = isFromLedger
      ? `the ledger recorded it${when}`
      : input.isListedWithoutStatus
        ? 'the orders file lists it (a sheet without a status column: was it ever imported? Give --orders the import result file to reconcile only what was accepted)'
        : `the orders file lists it as${when}`;
    exceptions.push(exception('missing_order', `The API does not know this order (404), though ${source}.`));
  }
  // An order an --orders file lists as accepted was sent by someone's import, if not through this ledger.
  if (!expected && !isNotFound && input.isListedAsSent !== true && (input.isLedgerConsulted ?? true) && isApiOrder) {
    const seen = read ? 'holds this order' : `shows ${resolved.packages.length} package(s) of this order`;
    exceptions.push(exception('unknown_order', `The API ${seen}, but the ledger has no record of sending it.`));
  }
  if (expected && orderDisposition !== null && orderDisposition !== API_ORDER_DISPOSITION) {
    exceptions.push(exception('unexpected_disposition', `The order's disposition is ${orderDisposition}, not ${API_ORDER_DISPOSITION}.`));
  }
  exceptions.push(...quantityExceptions(sent, read));
  const replacements = linesExplainedByReplacement(lines, resolved.packages);
  exceptions.push(...lineExceptions(lines, isApiOrder, replacements.explained));
  exceptions.push(...strayExceptions(strays));
  exceptions.push(...replacementExceptions(resolved.packages, replacements.byPackage));
  if (read) exceptions.push(...checkReadAmounts(sent, read));
  const orderDate = read?.orderDate ?? expected?.orderDate ?? null;
  if (!isNotFound) exceptions.push(...lateExceptions(lines, orderDate, now, lateAfterDays));

  const trackingNumbers = [...new Set(resolved.live.map((p) => p.trackingNumber).filter((t): t is string => t !== null))];
  return {
    customerOrderId,
    marketplaceOrderId: expected?.marketplaceOrderId ?? null,
    sourceOfSale: expected?.sourceOfSale ?? read?.sourceOfSale ?? null,
    orderDate,
    orderDisposition,
    isInLedger: isFromLedger,
    status: rollUp(lines, exceptions, isNotFound),
    trackingNumbers,
    lines,
    packages: resolved.packages,
    exceptions: dedupeLineExceptions(exceptions),
  };
}

/** One exception of a type per line: a line both cut down by the API and short in its packages is one partial shipment. */
function dedupeLineExceptions(exceptions: readonly ReconcileException[]): ReconcileException[] {
  const seen = new Set<string>();
  return exceptions.filter((e) => {
    if (e.customerLineItemId === undefined || e.packageId !== undefined) return true;
    const key = `${e.type}\u0000${e.customerLineItemId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
