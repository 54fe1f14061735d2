/**
 * `order-batch reconcile`: the connection and the ledger around src/reconcile, for the CLI and the web app.
 * "now" is --now when given; else the embedded sandbox's clock; else the API's clock, as the Date
 * header of its answers tells it (the local clock when it does not).
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import { openLedger } from '../ledger/index.js';
import type { ConnectionSettings } from '../options.js';
import { reconcile, type ReconcileResult } from '../reconcile/index.js';
import { connectWithLedger, type Connection } from './connect.js';

export interface ReconcileCommandOptions {
  connection: ConnectionSettings;
  useSandbox: boolean;
  ledgerPath: string;
  /** The local clock at start, or --now. */
  now: Date;
  /** --now was given: it wins over the API's clock. */
  isNowPinned: boolean;
  since?: Date;
  hours?: number;
  ordersFile?: string;
  all?: boolean;
  out?: string;
  confirmationsPath?: string;
  concurrency: number;
  maxAttempts: number;
  lateAfterDays: number;
  sheet?: string;
  logger: Logger;
  connectionOverride?: Connection;
  /**
   * A missing ledger file is a mistyped --ledger (default true). The web app says false: before its
   * first import there is no ledger yet, and an empty reconciliation is the right answer.
   */
  isLedgerRequired?: boolean;
}

export async function reconcileCommand(options: ReconcileCommandOptions): Promise<ReconcileResult> {
  if (options.isLedgerRequired ?? true) checkLedgerExists(options);
  const ledger = openLedger(options.ledgerPath, { logger: options.logger });
  let connection: Connection | undefined;
  try {
    connection = await connectWithLedger(ledger, { ...options, connectionOverride: options.connectionOverride });
    const now = !options.isNowPinned && connection.sandboxNow ? connection.sandboxNow() : options.now;
    return await reconcile({
      ledger,
      client: connection.client,
      now,
      isNowFromApi: !options.isNowPinned && !connection.sandboxNow,
      since: options.since,
      hours: options.hours,
      ordersFile: options.ordersFile,
      all: options.all,
      out: options.out,
      confirmationsPath: options.confirmationsPath,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      lateAfterDays: options.lateAfterDays,
      sheet: options.sheet,
      logger: options.logger,
    });
  } finally {
    if (!options.connectionOverride) await connection?.close();
    ledger.close();
  }
}

/**
 * Reconcile reads a ledger, it never starts one: a mistyped --ledger would otherwise create an empty
 * ledger and report "0 orders", exit 0. --orders and --all name their orders themselves and open
 * (or create) the ledger as before, for what it adds: what was sent, the API it is bound to, the
 * package store beside it.
 */
function checkLedgerExists(options: Pick<ReconcileCommandOptions, 'ledgerPath' | 'ordersFile' | 'all'>): void {
  if (options.ordersFile !== undefined || options.all || options.ledgerPath === ':memory:' || existsSync(options.ledgerPath)) return;
  throw new UsageError(
    `There is no ledger at ${options.ledgerPath}: reconcile reads the orders an import recorded there, and import creates it. ` +
      'Check --ledger (or ORDER_BATCH_LEDGER, or ledger in --config), ' +
      'or give --orders <result file> or --all, which work without one.',
  );
}
