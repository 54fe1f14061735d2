/**
 * `order-batch validate <file...>`: check sheets offline and write a result file for each.
 * Returns a result; the CLI (or the web app) decides what to print and which exit code follows.
 */
import { checkOrderOnline, fetchOnlineFacts, isSentByThisTool } from '../import/online-checks.js';
import { sheetColumnsOf } from '../import/sheet-cells.js';
import { hasErrors, type Issue } from '../issues/index.js';
import { ledgerExists, openLedger, type OrderRecord } from '../ledger/index.js';
import type { ConnectionSettings } from '../options.js';
import type { CheckedSheet } from '../orders/types.js';
import { connect, sandboxStatePathFor, type Connection } from './connect.js';
import type { Logger } from '../log.js';
import type { CheckContext } from '../orders/types.js';
import type { FileMapping } from '../mapping/choose.js';
import { checkFile, type ReadSettings } from './check-file.js';
import { expandInputs } from './input-files.js';
import { outputField, toJsonIssues, type JsonInput, type JsonOrder, type JsonOutputError, type JsonReport } from '../run-report/json.js';
import { writeOrRecordFailure } from '../run-report/output-errors.js';
import { resultPathFor } from './output-path.js';
import type { Progress } from './progress.js';
import { countByStatus, type OrderOutcomeView } from './result-rows.js';
import { writeResultFile } from './write-result.js';

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
    ledgerPath: string;
    maxAttempts: number;
    concurrency: number;
    connectionOverride?: Connection;
  };
}

export interface ValidateResult {
  report: JsonReport;
  /** A file could not be used at all (unreadable, unsupported, empty, missing column). */
  hasUnusableInput: boolean;
  hasInvalidOrders: boolean;
}

export function validationOutcome(issues: OrderOutcomeView['issues']): OrderOutcomeView {
  const invalid = hasErrors(issues);
  return { status: invalid ? 'invalid' : 'valid', issues, needsFix: invalid };
}

export async function validateFiles(options: ValidateOptions): Promise<ValidateResult> {
  const files = expandInputs(options.files, { logger: options.logger });
  const inputs: JsonInput[] = [];
  const orders: JsonOrder[] = [];
  const outputs: string[] = [];
  const outputErrors: JsonOutputError[] = [];
  const statuses: string[] = [];
  let hasUnusableInput = false;

  const checkedSheets: CheckedSheet[] = [];
  const noticesOf = new Map<CheckedSheet, string[]>();
  const mappingOf = new Map<CheckedSheet, FileMapping>();
  const takenOutputs = new Set<string>();
  for (const file of files) {
    const checked = await checkFile(file, { context: options.context, sheet: options.sheet, logger: options.logger, progress: options.progress, ...(options.readSettings && { settings: options.readSettings }) });
    if (!checked.ok) {
      hasUnusableInput = true;
      inputs.push({ file, sha256: null, rows: 0, orders: 0, error: { code: checked.code, message: checked.message } });
      continue;
    }
    checkedSheets.push(checked.sheet);
    if (checked.notices.length > 0) noticesOf.set(checked.sheet, [...checked.notices]);
    if (checked.mapping) mappingOf.set(checked.sheet, checked.mapping);
  }
  const onlineIssues = options.online ? await checkOnline(checkedSheets, options.online, options.logger) : undefined;

  for (const sheet of checkedSheets) {
    const file = sheet.file;
    if (hasErrors(sheet.fileIssues)) hasUnusableInput = true;
    const extra = onlineIssues?.get(sheet);
    const outcomes = sheet.orders.map((o, i) => validationOutcome([...o.issues, ...(extra?.[i] ?? [])]));
    const notices = noticesOf.get(sheet);
    const mapping = mappingOf.get(sheet);
    inputs.push({ file, sha256: sheet.sha256, rows: sheet.rows.size, orders: sheet.orders.length, issues: toJsonIssues(sheet.fileIssues), ...(notices ? { notices } : {}), ...(mapping && { mapping }) });
    sheet.orders.forEach((order, i) => {
      const outcome = outcomes[i]!;
      statuses.push(outcome.status);
      orders.push({ customerOrderId: order.customerOrderId, file, rows: order.rows, status: outcome.status, issues: toJsonIssues(outcome.issues) });
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

  const summary = countByStatus(statuses);
  return {
    report: { command: 'validate', input: inputs, summary, orders, output: outputField(outputs), ...(outputErrors.length > 0 ? { outputErrors } : {}) },
    hasUnusableInput,
    hasInvalidOrders: (summary.invalid ?? 0) > 0,
  };
}

/** API-side issues per sheet and order index; the ledger (when there is one) tells our own orders apart. */
async function checkOnline(sheets: readonly CheckedSheet[], online: NonNullable<ValidateOptions['online']>, logger: Logger): Promise<Map<CheckedSheet, Issue[][]>> {
  // order.payload is rebuilt on every read: take each once.
  const payloads = new Map(sheets.map((sheet) => [sheet, sheet.orders.map((o) => (o.status === 'valid' ? o.payload : undefined))]));
  const valid = [...payloads.values()].flat().filter((p): p is NonNullable<typeof p> => p !== undefined);
  const ledger = ledgerExists(online.ledgerPath) ? await openLedger(online.ledgerPath, { logger }) : undefined;
  let ours = new Map<string, OrderRecord>();
  try {
    if (ledger) ours = await ledger.getMany(valid.map((p) => p.orderDetails.customerOrderId));
  } finally {
    await ledger?.close();
  }
  const connection =
    online.connectionOverride ??
    (await connect({ connection: online.connection, useSandbox: online.useSandbox, sandboxStatePath: sandboxStatePathFor(online.ledgerPath), concurrency: online.concurrency, logger }));
  try {
    const facts = await fetchOnlineFacts({
      client: connection.client,
      payloads: valid,
      maxAttempts: online.maxAttempts,
      concurrency: online.concurrency,
      logger,
    });
    const isOurs = (id: string) => isSentByThisTool(ours.get(id));
    return new Map(sheets.map((sheet) => [sheet, sheet.orders.map((order, i) => checkOrderOnline(order, payloads.get(sheet)![i], sheetColumnsOf(sheet), facts, isOurs))]));
  } finally {
    if (!online.connectionOverride) await connection.close();
  }
}
