/**
 * `order-batch reconcile`: the connection around one reconcile run (reconcile-run.ts) on the ledger the
 * entry point opened (the CLI, the web app, the scheduler), for the CLI and the web app.
 * "now" is --now when given; else the embedded sandbox's clock; else the API's clock, as the Date
 * header of its answers tells it (the local clock when it does not).
 */
import { UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import { type Ledger, ledgerExists } from '../ledger/index.js';
import type { ConnectionSettings } from '../options.js';
import { reconcile, type ReconcileOptions, type ReconcileResult } from './reconcile-run.js';
import { connect, connectWithLedger, sandboxStatePathFor, type Connection } from '../connection/connect.js';

export interface ReconcileCommandOptions {
  connection: ConnectionSettings;
  useSandbox: boolean;
  /** Where the ledger is (the embedded sandbox's world and the package store are kept beside it). */
  ledgerPath: string;
  /** The ledger the entry point opened; none: reconciling --orders or --all without one (see ledgerUseOf). */
  ledger?: Ledger;
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
  confirmationsAll?: boolean;
  /** A remote --confirmations folder's upload, run before the ledger records what it holds. */
  placeConfirmations?: () => Promise<void>;
  concurrency: number;
  maxAttempts: number;
  lateAfterDays: number;
  sheet?: string;
  /** --orders: the zone import read dates without an offset in (default UTC). */
  timezone?: string;
  logger: Logger;
  connectionOverride?: Connection;
}

/**
 * Whether the entry point opens the ledger for a reconcile (true) or runs it without one (false), before
 * anything is opened. --orders and --all name their orders themselves: a ledger there adds what was sent,
 * but none is started for them (it would be bound to this API, and the next run against another refused).
 * Throws the UsageError of a mistyped --ledger.
 */
export function ledgerUseOf(options: Pick<ReconcileCommandOptions, 'ledgerPath' | 'ordersFile' | 'all'>): boolean {
  checkLedgerExists(options);
  return hasLedger(options.ledgerPath);
}

/** The run on the entry point's ledger, which stays open for it to close. */
export async function runReconcile(options: ReconcileCommandOptions): Promise<ReconcileResult> {
  const { ledger } = options;
  if (!ledger) return reconcileWithoutLedger(options);
  let connection: Connection | undefined;
  try {
    connection = await connectWithLedger(ledger, { ...options, connectionOverride: options.connectionOverride });
    return await reconcile(await reconcileOptions(options, connection, ledger));
  } finally {
    if (!options.connectionOverride) await connection?.close();
  }
}

/** No ledger: nothing recorded, no watermark, and what is fetched is kept in memory for this run only. */
async function reconcileWithoutLedger(options: ReconcileCommandOptions): Promise<ReconcileResult> {
  const sent = options.ordersFile !== undefined ? 'what was sent is what the --orders file says' : 'the orders are taken as the API lists them';
  options.logger.info({ ledger: options.ledgerPath }, `No ledger at ${options.ledgerPath}: reconciling without one (${sent}); none is created.`);
  const connection =
    options.connectionOverride ??
    (await connect({
      connection: options.connection,
      useSandbox: options.useSandbox,
      // The embedded sandbox's world is kept beside the ledger path either way: the one import --sandbox sent to.
      sandboxStatePath: sandboxStatePathFor(options.ledgerPath),
      concurrency: options.concurrency,
      logger: options.logger,
    }));
  try {
    return await reconcile(await reconcileOptions(options, connection, undefined));
  } finally {
    if (!options.connectionOverride) await connection.close();
  }
}

async function reconcileOptions(options: ReconcileCommandOptions, connection: Connection, ledger: Ledger | undefined): Promise<ReconcileOptions> {
  const now = !options.isNowPinned && connection.sandboxNow ? await connection.sandboxNow() : options.now;
  return {
    ...(ledger ? { ledger } : {}),
    client: connection.client,
    now,
    isNowFromApi: !options.isNowPinned && !connection.sandboxNow,
    since: options.since,
    hours: options.hours,
    ordersFile: options.ordersFile,
    all: options.all,
    out: options.out,
    confirmationsPath: options.confirmationsPath,
    confirmationsAll: options.confirmationsAll,
    ...(options.placeConfirmations ? { placeConfirmations: options.placeConfirmations } : {}),
    concurrency: options.concurrency,
    maxAttempts: options.maxAttempts,
    lateAfterDays: options.lateAfterDays,
    sheet: options.sheet,
    ...(options.timezone ? { timezone: options.timezone } : {}),
    logger: options.logger,
  };
}

function namesItsOrders(options: Pick<ReconcileCommandOptions, 'ordersFile' | 'all'>): boolean {
  return options.ordersFile !== undefined || options.all === true;
}

function hasLedger(ledgerPath: string): boolean {
  return ledgerExists(ledgerPath);
}

/**
 * Reconcile reads a ledger, it never starts one: a mistyped --ledger would otherwise create an empty
 * ledger and report "0 orders", exit 0. --orders and --all name their orders themselves: they use
 * the ledger when there is one (what was sent, the API it is bound to, the package store beside it)
 * and run without one when there is none.
 */
function checkLedgerExists(options: Pick<ReconcileCommandOptions, 'ledgerPath' | 'ordersFile' | 'all'>): void {
  if (namesItsOrders(options) || hasLedger(options.ledgerPath)) return;
  throw new UsageError(
    `There is no ledger at ${options.ledgerPath}: reconcile reads the orders an import recorded there, and import creates it. ` +
      'Check --ledger (or ORDER_BATCH_LEDGER, or ledger in --config), ' +
      'or give --orders <result file> or --all, which work without one.',
  );
}
