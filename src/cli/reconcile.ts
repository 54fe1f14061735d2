/** `order-batch reconcile`: flags to ReconcileCommandOptions, the report printed, the exit code. */
import type { Command } from 'commander';
import { formatReconcileText } from '../run-report/text.js';
import { parseHours, parseSince, type RawFlags, type ResolvedOptions } from '../options.js';
import type { CliRun } from './cli-run.js';
import { addCommonOptions, addConnectionHelp, apiSettingsOf, loggerFor, resolveFlags } from './command-options.js';
import { reconcileExitCode } from '../run-report/exit-code.js';
import { addRunWatchOptions, watchRun } from './run-watch.js';
import { exitOnSignal } from './signals.js';
import { addRemoteOptions, remoteContextOf } from './remote-options.js';
import { openCommandLedger, withCommandLedger } from './cli-ledger.js';

/** The flags only reconcile has, which options.ts does not merge (no environment or config key). */
export interface ReconcileFlags extends RawFlags {
  since?: string;
  hours?: string;
  orders?: string;
  all?: boolean;
  confirmations?: string;
  confirmationsAll?: boolean;
}

/** What a reconcile takes from its flags: one place, so a scheduled reconcile runs as the command line's does. */
export function reconcileSettingsOf(options: ResolvedOptions, flags: ReconcileFlags) {
  return {
    ...apiSettingsOf(options),
    now: options.now,
    isNowPinned: options.isNowPinned,
    since: flags.since === undefined ? undefined : parseSince(flags.since),
    hours: flags.hours === undefined ? undefined : parseHours(flags.hours),
    ordersFile: flags.orders,
    all: flags.all,
    out: options.out,
    confirmationsPath: flags.confirmations,
    confirmationsAll: flags.confirmationsAll,
    lateAfterDays: options.lateAfterDays,
    sheet: options.sheet,
    timezone: options.timezone,
  };
}

export function addReconcileCommand(program: Command, run: CliRun): void {
  const command = addCommonOptions(
    program
      .command('reconcile')
      .description('pull orders, packages and tracking; write the reconciliation workbook')
      .option('--since <iso>', 'orders the ledger submitted since this instant (default: the last 30 days)')
      .option('--hours <n>', 'orders the ledger submitted in the last n hours (n from 1)')
      .option('--orders <result file>', 'the orders of a validate/import result file (no ledger needed)')
      .option('--all', 'every order the API lists, no ledger needed: the last 30 days, or --since / --hours rounded up to whole days (at most 365)')
      .option('--late-after-days <n>', 'a line not shipped this many whole days after its order date is late (default 3)')
      .option('--confirmations <folder|csv>', 'also write tracking confirmations: a folder gets confirmations.csv and one file per marketplace in its upload format (new packages only); a .csv path the generic file alone')
      .option('--confirmations-all', 'with a --confirmations folder: every shipped package, also those confirmed by an earlier run')
      .option('--concurrency <n>', 'requests at once (default 8)')
      .option('--max-attempts <n>', 'attempts per request for transient failures (default 6)')
      .option('--sandbox', 'use the embedded sandbox (with the orders import --sandbox sent)')
      .option('--ledger <path|url>', 'the ledger: a file (default .order-batch/ledger.db; the sandbox has its own) or a postgres:// URL'),
    {
      out: 'the reconciliation workbook (.xlsx), or a folder to write it in (default: reconcile-<date>-<time>.xlsx in the current folder)',
      now: 'reconcile as of this instant (default: now): the end of the --since / --hours window, and what is late by then',
      timezone: 'with --orders: the zone the result file was read in, for its dates without an offset (default UTC)',
      sheet: 'with --orders: the worksheet of an xlsx result file (default: its Results sheet)',
    },
  );
  addRemoteOptions(command, { isReading: false });
  addConnectionHelp(addRunWatchOptions(command)).action(async (flags: ReconcileFlags) => {
    // Nothing of a reconcile is kept until its workbook is written: stopping is always safe.
    exitOnSignal();
    const options = resolveFlags(flags);
    const logger = loggerFor(options);
    const watch = await watchRun(options, logger, (line) => run.warn(line));
    const { ledgerUseOf, runReconcile } = await import('../reconcile/run-reconcile.js');
    const settings = reconcileSettingsOf(options, flags);
    // Opened once, when the reconcile reads one: the run, its audit entry and a failed notification's record.
    const ledger = ledgerUseOf(settings) ? await openCommandLedger(options, logger) : undefined;
    await withCommandLedger(ledger, async () => {
      const { prepareRemoteRun } = await import('../remote/remote-run.js');
      const remote = await prepareRemoteRun({ command: 'reconcile', out: options.out, confirmations: flags.confirmations }, remoteContextOf(options));
      const result = await runReconcile({ ...settings, ...(ledger ? { ledger } : {}), out: remote.out, confirmationsPath: remote.confirmations, placeConfirmations: remote.placeConfirmations, logger }).catch(remote.abandon);
      try {
        await remote.finish(result.report).finally(remote.close);
        await run.printReport(result.report, options, formatReconcileText);
        if (ledger) await (await import('../audit/record-run.js')).recordRunIn(ledger, result.report, { logger });
        run.exitCode = reconcileExitCode(result);
        await watch.finish({ command: 'reconcile', runId: null, exitCode: run.exitCode, report: result.report, ledger });
      } finally {
        result.release();
      }
    });
  });
}
