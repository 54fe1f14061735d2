/**
 * `order-batch validate <file...>`: check sheets offline and write a result file for each.
 * Returns a result; the CLI (or the web app) decides what to print and which exit code follows.
 */
import type { CreateOrderPayload } from '../contract/schemas.js';
import {
  checkOrderOnline,
  fetchOnlineFacts,
  isInvalidOnlyByAge,
  isSentAsIs,
  isSentByThisTool,
  payloadOfAgedOrder,
  withoutAgeErrors,
} from './online-checks.js';
import { sheetColumnsOf } from '../orders/sheet-cells.js';
import { hasErrors, type Issue } from '../issues/index.js';
import type { Ledger, OrderRecord } from '../ledger/index.js';
import type { ConnectionSettings } from '../options.js';
import type { CheckedSheet } from '../orders/types.js';
import { connect, sandboxStatePathFor, type Connection } from '../connection/connect.js';
import type { Logger } from '../log.js';
import type { CheckContext } from '../orders/types.js';
import type { FileMapping } from '../mapping/choose.js';
import { checkSheetFiles, type ReadSettings } from './check-file.js';
import { expandInputs } from './input-files.js';
import { LazyOrders, outputField, toJsonIssues, type JsonInput, type JsonOrder, type JsonOutputError, type JsonReport } from '../run-report/json.js';
import { writeOrRecordFailure } from '../run-report/output-errors.js';
import { resultPathFor } from '../output-files/output-path.js';
import type { Progress } from '../progress.js';
import type { OrderOutcomes, OrderOutcomeView } from '../result-files/result-rows.js';
import { writeResultFile } from '../result-files/write-result.js';

export interface ValidateOptions {
  files: readonly string[];
  out?: string;
  sheet?: string;
  context: CheckContext;
  logger: Logger;
  progress?: Progress;
  /** Skip writing result files (the web app writes on demand). Default false. */
  skipResultFile?: boolean;
  /** How columns, dates and numbers are read (--mapping, --date-order, --decimal-comma). */
  readSettings?: ReadSettings;
  /** --online: also ask the API about products, stock and existing orders. */
  online?: {
    connection: ConnectionSettings;
    useSandbox: boolean;
    /** Where the embedded sandbox keeps its world: beside the ledger. */
    ledgerPath: string;
    /** The ledger the entry point opened, when there is one: it tells our own orders apart. None is created for a check. */
    ledger?: Ledger;
    maxAttempts: number;
    concurrency: number;
    connectionOverride?: Connection;
  };
}

export interface ValidateResult {
  /** Its orders are read from the checked sheets when iterated (see LazyOrders). */
  report: JsonReport<LazyOrders<JsonOrder>>;
  /** A file could not be used at all (unreadable, unsupported, empty, missing column). */
  hasUnusableInput: boolean;
  hasInvalidOrders: boolean;
}

export function validationOutcome(issues: OrderOutcomeView['issues']): OrderOutcomeView {
  const invalid = hasErrors(issues);
  return { status: invalid ? 'invalid' : 'valid', issues, needsFix: invalid };
}

export async function runValidate(options: ValidateOptions): Promise<ValidateResult> {
  const { files, skipped } = expandInputs(options.files, { logger: options.logger });
  const inputs: JsonInput[] = [];
  const outputs: string[] = [];
  const outputErrors: JsonOutputError[] = [];
  const summary: Record<string, number> = {};
  const reported: { length: number; at(index: number): JsonOrder }[] = [];
  let hasUnusableInput = false;

  const checkedSheets: CheckedSheet[] = [];
  const noticesOf = new Map<CheckedSheet, string[]>();
  const mappingOf = new Map<CheckedSheet, FileMapping>();
  const takenOutputs = new Set<string>();
  const unreadable = (input: JsonInput) => {
    hasUnusableInput = true;
    inputs.push(input);
  };
  for await (const checked of checkSheetFiles(files, options, unreadable)) {
    checkedSheets.push(checked.sheet);
    if (checked.notices.length > 0) noticesOf.set(checked.sheet, [...checked.notices]);
    if (checked.mapping) mappingOf.set(checked.sheet, checked.mapping);
  }
  // With --online, each order's issues as the API and the ledger leave them.
  const onlineIssues = options.online ? await checkOnline(checkedSheets, options.online, options.logger) : undefined;

  for (const sheet of checkedSheets) {
    const file = sheet.file;
    if (hasErrors(sheet.fileIssues)) hasUnusableInput = true;
    const outcomes = new SheetOutcomes(sheet, onlineIssues?.get(sheet));
    const notices = noticesOf.get(sheet);
    const mapping = mappingOf.get(sheet);
    inputs.push({ file, sha256: sheet.sha256, rows: sheet.rows.size, orders: sheet.orders.length, issues: toJsonIssues(sheet.fileIssues), ...(notices ? { notices } : {}), ...(mapping && { mapping }) });
    for (let i = 0; i < outcomes.length; i++) {
      const status = outcomes.statusAt(i);
      summary[status] = (summary[status] ?? 0) + 1;
    }
    reported.push({
      length: sheet.orders.length,
      at: (i) => {
        const order = sheet.orders.at(i)!;
        const outcome = outcomes.at(i);
        return { customerOrderId: order.customerOrderId, file, rows: order.rows, status: outcome.status, issues: toJsonIssues(outcome.issues) };
      },
    });
    if (!options.skipResultFile) {
      const path = resultPathFor(file, options.out, files.length, 'result', takenOutputs);
      // The verdicts stand: a result file that cannot be written is reported after them.
      const written = await writeOrRecordFailure(outputErrors, { file, path, logger: options.logger }, () =>
        writeResultFile({
          command: 'validate',
          sheet,
          outcomes,
          extraColumns: [],
          path,
          isDefaultPath: options.out === undefined,
          generatedAt: new Date(),
          notes: [`Checked as of ${options.context.now.toISOString()} (dates without an offset read in ${options.context.timezone}).`],
          sourcesOfSale: options.context.sourcesOfSale,
          logger: options.logger,
        }),
      );
      if (written !== undefined) outputs.push(written);
    }
  }

  return {
    report: {
      command: 'validate',
      input: inputs,
      summary,
      orders: new LazyOrders(reported),
      output: outputField(outputs),
      ...(skipped.length > 0 ? { skipped: skipped.map(({ file, reason }) => ({ file, reason })) } : {}),
      ...(outputErrors.length > 0 ? { outputErrors } : {}),
    },
    hasUnusableInput,
    hasInvalidOrders: (summary.invalid ?? 0) > 0,
  };
}

/**
 * The outcome of each order of a checked sheet, built when asked for: a sheet of millions of orders is written
 * and reported without holding them all. With --online, an order's issues are the ones judged online instead.
 */
class SheetOutcomes implements OrderOutcomes {
  constructor(
    private readonly sheet: CheckedSheet,
    private readonly judged: (readonly Issue[])[] | undefined,
  ) {}

  get length(): number {
    return this.sheet.orders.length;
  }

  at(index: number): OrderOutcomeView {
    const judged = this.judged?.[index];
    return validationOutcome(judged !== undefined ? [...judged] : (this.sheet.orders.issuesAt?.(index) ?? this.sheet.orders.at(index)!.issues));
  }

  /** The status alone, without reading the issues of an order the checker found valid (offline). */
  statusAt(index: number): string {
    const status = this.judged === undefined ? this.sheet.orders.statusAt?.(index) : undefined;
    return status ?? this.at(index).status;
  }
}

/**
 * Each order's issues once the API and the ledger (when there is one) have been asked, per sheet and order
 * index, judged as import judges them: an order the ledger holds as sent with these very contents is not
 * judged on today's facts, and one invalid only because its orderDate has aged since it was sent is that
 * same order, not an invalid one (import reports both already_submitted).
 */
export async function checkOnline(sheets: readonly CheckedSheet[], online: NonNullable<ValidateOptions['online']>, logger: Logger): Promise<Map<CheckedSheet, Issue[][]>> {
  const asked = sheets.flatMap((sheet) => sheet.orders.flatMap((o) => (o.customerOrderId !== null && (o.status === 'valid' || isInvalidOnlyByAge(o.issues)) ? [o.customerOrderId] : [])));
  const ours: Map<string, OrderRecord> = online.ledger ? await online.ledger.getMany(asked) : new Map();
  // order.payload is rebuilt on every read: take each once. An aged order the ledger holds as sent comes as it was sent.
  const judged = new Map(
    sheets.map((sheet) => [
      sheet,
      sheet.orders.map((o): { payload: CreateOrderPayload | undefined; issues: readonly Issue[] } => {
        if (o.status === 'valid') return { payload: o.payload, issues: o.issues };
        const aged = o.customerOrderId === null ? undefined : payloadOfAgedOrder(o, ours.get(o.customerOrderId));
        return aged ? { payload: aged, issues: withoutAgeErrors(o.issues) } : { payload: undefined, issues: o.issues };
      }),
    ]),
  );
  const payloads = [...judged.values()].flat().flatMap((j) => (j.payload && !isSentAsIs(ours.get(j.payload.orderDetails.customerOrderId), j.payload) ? [j.payload] : []));
  const connection =
    online.connectionOverride ??
    (await connect({ connection: online.connection, useSandbox: online.useSandbox, sandboxStatePath: sandboxStatePathFor(online.ledgerPath), concurrency: online.concurrency, logger }));
  try {
    const facts = await fetchOnlineFacts({ client: connection.client, payloads, maxAttempts: online.maxAttempts, concurrency: online.concurrency, logger });
    const isOurs = (id: string) => isSentByThisTool(ours.get(id));
    const sentAsIs = (payload: CreateOrderPayload) => isSentAsIs(ours.get(payload.orderDetails.customerOrderId), payload);
    return new Map(
      sheets.map((sheet) => [
        sheet,
        judged.get(sheet)!.map(({ payload, issues }, i) => [...issues, ...checkOrderOnline(sheet.orders.at(i)!, payload, sheetColumnsOf(sheet), facts, isOurs, sentAsIs)]),
      ]),
    );
  } finally {
    if (!online.connectionOverride) await connection.close();
  }
}
