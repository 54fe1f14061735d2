/**
 * What an order's submission comes to when the API's answer alone does not say: an order the run
 * did not send, one sent before, a copy of an order that another file of the run sent, and the
 * cells a refusal points at.
 */
import type { HttpError } from '../../api/errors.js';
import type { Issue } from '../../issues/index.js';
import { type IntentResult, type OrderRecord } from '../../ledger/index.js';
import type { CheckedOrder } from '../../orders/types.js';
import { fieldOfApiPath, issueAt, rowOfLine, type SheetColumns } from '../../orders/sheet-cells.js';
import type { AlreadySubmittedOutcome, FailedOutcome, InProgressElsewhereOutcome, SubmissionJob, SubmitOutcome } from './types.js';

/** The API's 409 for a customerOrderId it already holds (api-spec section 7). */
export const DUPLICATE_MESSAGE = /already exists/i;
const OUT_OF_STOCK_MESSAGE = /out of stock for ProductId '([^']*)'/i;

/** An order this run did not send (the run stopped first): failed, for the next run to send. */
export function notSentOutcome(job: SubmissionJob, why: string): FailedOutcome {
  return {
    status: 'failed',
    posts: 0,
    issues: [issueAt(job.sheet, job.order.rows[0] ?? null, null, 'failed', `Not sent: ${why} Run the import again to send it.`)],
  };
}

/**
 * An order the ledger failed under (`failure`: its storage, a full disk or a damaged file): maybe sent,
 * never recorded as settled, so the next run looks it up before it is ever sent again.
 */
export function notSettledOutcome(job: SubmissionJob, failure: string): FailedOutcome {
  return {
    status: 'failed',
    posts: 0,
    issues: [
      issueAt(job.sheet, job.order.rows[0] ?? null, null, 'failed', `Not settled: the ledger could not record this order. ${failure} Once it is fixed, run the import again: an order that may have gone out is looked up before it is sent again.`),
    ],
  };
}

/** Another live run holds the order (`holder` says which): this run leaves it to that one. */
export function inProgressElsewhereOutcome(job: SubmissionJob, holder: string): InProgressElsewhereOutcome {
  return {
    status: 'in_progress_elsewhere',
    posts: 0,
    issues: [
      issueAt(job.sheet, job.order.rows[0] ?? null, 'customerOrderId', 'in_progress_elsewhere', `Not sent by this run: another run is sending this order (${holder}). It is not sent twice; that run's result, or the next run of this sheet, says how it ended.`),
    ],
  };
}

/**
 * This run's hold on the order lapsed (it stalled past its claim lease) and another run took the order
 * over: this run sends it no more, and leaves it to that run. `posts`: a POST of this run was in flight,
 * its answer unknown or not this run's to record; the other run looks the order up before sending it.
 */
export function claimLostOutcome(job: SubmissionJob, holder: string, posts: number): InProgressElsewhereOutcome {
  const what =
    posts === 0
      ? 'Not sent by this run: it stalled past its claim on the order (--claim-lease), and another run took the order over'
      : 'Sent by this run, but before its answer was recorded the run stalled past its claim on the order (--claim-lease) and another run took the order over: that run looks the order up before it would send it again';
  return {
    status: 'in_progress_elsewhere',
    posts,
    issues: [issueAt(job.sheet, job.order.rows[0] ?? null, 'customerOrderId', 'in_progress_elsewhere', `${what} (${holder}). It is not sent twice; that run's result, or the next run of this sheet, says how it ended.`)],
  };
}

/**
 * Accepted by an earlier run (`record`, as the ledger holds it now): never sent again; a sheet whose
 * contents changed since is told the change was not applied.
 */
export function alreadySubmittedOutcome(job: SubmissionJob, decision: Pick<IntentResult, 'payloadChanged'>, record: OrderRecord): AlreadySubmittedOutcome {
  const id = job.payload.orderDetails.customerOrderId;
  return {
    status: 'already_submitted',
    posts: 0,
    issues: decision.payloadChanged ? [contentsChangedIssue(job.sheet, job.order, id)] : [],
    ...(decision.payloadChanged ? { contentsDiffer: true } : {}),
    submittedAt: record.submittedAt ?? undefined,
    requestId: record.requestId ?? undefined,
    httpStatus: record.httpStatus ?? undefined,
  };
}

/**
 * The outcome of a copy of an order that another file or sheet of the same run holds too: only the
 * first copy goes out (`first` is its outcome). An identical copy shares its fate; a copy with other
 * contents was never sent: an error that names the copy that was, and, when that one is stored, the
 * already_submitted status of finding a changed order already sent (the change was not applied).
 */
export function duplicateOutcome(job: SubmissionJob, firstJob: SubmissionJob, first: SubmitOutcome, isIdentical: boolean): SubmitOutcome {
  const id = job.payload.orderDetails.customerOrderId;
  const row = job.order.rows[0] ?? null;
  const firstRow = firstJob.order.rows[0];
  const where = `${firstJob.file}${firstRow === undefined ? '' : `, row ${firstRow}`}`;
  const said = {
    ...(first.httpStatus !== undefined ? { httpStatus: first.httpStatus } : {}),
    ...(first.requestId !== undefined ? { requestId: first.requestId } : {}),
  };
  const answer = { ...said, ...(first.submittedAt !== undefined ? { submittedAt: first.submittedAt } : {}) };
  // Another run holds it: so does it for this copy.
  if (first.status === 'in_progress_elsewhere') return { status: 'in_progress_elsewhere', posts: 0, issues: first.issues.map((issue) => ({ ...issue, row })) };
  const isStored = first.status === 'accepted' || first.status === 'already_submitted';
  const sentBy = first.status === 'accepted' ? 'by this run' : 'by an earlier run';
  if (!isIdentical) {
    const issue = issueAt(job.sheet, row, 'customerOrderId', 'already_exists', isStored
      ? `Order "${id}" appears more than once in this run with different contents: the copy in ${where} was sent (${sentBy}) and this one was not, so the fulfillment network keeps that version and this change was not applied. Use a new customerOrderId for a different order, or remove this copy.`
      : `Order "${id}" appears more than once in this run with different contents: the copy in ${where} went out first (${first.status}) and this one was not sent. Keep one copy of the order, or use a new customerOrderId for a different order.`);
    return isStored ? { status: 'already_submitted', posts: 0, contentsDiffer: true, issues: [issue], ...answer } : { status: 'invalid', posts: 0, issues: [issue] };
  }
  // Sent once, with these very contents: already_submitted, as on a re-run of the same sheet (which
  // carries no issue either; the request id and time are the copy's that went out).
  if (isStored) return { status: 'already_submitted', posts: 0, issues: [], ...answer };
  const cause = first.issues.find((i) => i.severity === 'error');
  const message = first.status === 'rejected'
    ? `Not sent: this run sent the order once, from ${where}, and the fulfillment API refused it there${cause ? `: ${cause.message}` : '.'}`
    : `Not sent: this run sends the order once, from ${where}, where it is not settled yet; run the import again.${cause ? ` There: ${cause.message}` : ''}`;
  const issues = [issueAt(job.sheet, row, null, first.status === 'rejected' ? (cause?.code ?? 'api_rejected') : 'failed', message)];
  if (first.status === 'invalid') return { status: 'invalid', posts: 0, issues };
  // Not stored: no submittedAt to carry.
  return { status: first.status, posts: 0, ...said, issues };
}

/** A refusal as issues on the cells it names: the out-of-stock line, the field in `errors`, or the order. */
export function rejectionIssues(job: SubmissionJob, err: HttpError): Issue[] {
  const { order, sheet } = job;
  const firstRow = order.rows[0] ?? null;
  const stock = OUT_OF_STOCK_MESSAGE.exec(err.message);
  if (err.status === 409 && stock) {
    const lineIndex = job.payload.orderDetails.lineItems.findIndex((l) => l.productId === stock[1]);
    return [issueAt(sheet, lineIndex >= 0 ? rowOfLine(order, lineIndex) : firstRow, 'productId', 'out_of_stock', `${err.message} No fulfillment center has it: remove the line or wait for stock.`)];
  }
  if (err.status === 409 && DUPLICATE_MESSAGE.test(err.message)) {
    return [issueAt(sheet, firstRow, 'customerOrderId', 'already_exists', `${err.message} It was not sent by this tool: use a new customerOrderId if this is a different order.`)];
  }
  const details = detailErrors(err.body);
  if (details.length === 0) return [issueAt(sheet, firstRow, null, 'api_rejected', `Refused by the fulfillment API (HTTP ${err.status}): ${err.message}`)];
  return details.map((d) => {
    const { field, lineIndex } = fieldOfApiPath(d.field);
    const row = lineIndex !== null ? rowOfLine(order, lineIndex) : firstRow;
    return issueAt(sheet, row, field, 'api_rejected', `Refused by the fulfillment API (HTTP ${err.status}): ${d.field ? `${d.field}: ` : ''}${d.message}`);
  });
}

function detailErrors(body: unknown): { field?: string; message: string }[] {
  if (typeof body !== 'object' || body === null) return [];
  const errors = (body as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e): e is { field?: unknown; message: unknown } => typeof e === 'object' && e !== null && 'message' in e)
    .map((e) => ({ field: typeof e.field === 'string' ? e.field : undefined, message: String(e.message) }));
}

/** The error of an order this tool already sent with other contents: the change was not applied. */
export function contentsChangedIssue(sheet: SheetColumns, order: CheckedOrder, customerOrderId: string): Issue {
  return issueAt(
    sheet,
    order.rows[0] ?? null,
    'customerOrderId',
    'already_exists',
    `Order "${customerOrderId}" was already sent by this tool with different contents; the fulfillment network keeps the first version, so this change was not applied. Use a new customerOrderId for a different order.`,
  );
}
