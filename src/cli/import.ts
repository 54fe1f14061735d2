/** `order-batch import <file...>`: flags to ImportOptions, Ctrl-C winds the run down, the report and the exit code. */
import type { Command } from 'commander';
import { formatValidateText } from '../run-report/text.js';
import type { RawFlags, ResolvedOptions } from '../options.js';
import type { Ledger } from '../ledger/index.js';
import type { ImportOptions, ImportResult } from '../import/import-options.js';
import type { Logger } from '../log.js';
import type { CliRun } from './cli-run.js';
import { addCommonOptions, addConnectionHelp, addReadOptions, readSettingsOf, apiSettingsOf, sheetCommandHelp, byteProgressOf, checkContextOf, loggerFor, orderProgressOf, resolveFlags } from './command-options.js';
import { importExitCode } from '../run-report/exit-code.js';
import { addRunWatchOptions, watchRun } from './run-watch.js';
import { onInterrupt } from './signals.js';
import { addRemoteOptions, remoteContextOf } from './remote-options.js';
import { openCommandLedger } from './cli-ledger.js';

/** What an import takes from its resolved flags: one place, so a scheduled import runs as the command line's does. */
export async function importSettingsOf(options: ResolvedOptions, files: string[], ledger: Ledger) {
  return {
    ...apiSettingsOf(options),
    ledger,
    files,
    out: options.out,
    sheet: options.sheet,
    context: checkContextOf(options),
    readSettings: await readSettingsOf(options, { needsLedger: true, ledger }),
    dryRun: options.dryRun,
    ...(options.teamConcurrency ? { teamConcurrency: options.teamConcurrency } : {}),
    archiveDir: options.archiveDir,
  };
}

export function addImportCommand(program: Command, run: CliRun): void {
  const command = addCommonOptions(
    addReadOptions(program
      .command('import')
      .description('validate, submit the valid orders, and write a result file beside each sheet')
      .argument('<file...>', 'CSV or XLSX order sheets, or folders of them')
      .option('--concurrency <n>', 'orders sent at once (default 8)')
      .option('--max-attempts <n>', 'attempts per order for transient failures (default 6)')
      .option('--dry-run', 'do everything but send the orders')
      .option('--sandbox', 'start the embedded sandbox and send the orders there')
      .option('--ledger <path|url>', 'the ledger: a file (default .order-batch/ledger.db; the sandbox has its own) or a postgres:// URL shared by a team')
      .option('--team-concurrency <n>', "this run's share: at most n orders sent at once, within the team's cap the ledger holds (ledger set team-concurrency); it can lower the run's share, never raise the cap")
      .option('--claim-lease <seconds>', "how long a dead run's orders wait before another run takes them over (PostgreSQL; default 120)")
      .option('--archive <dir>', 'move each sheet and its result here once every order is settled; a sheet with orders to fix or retry stays')),
    sheetCommandHelp('import-result'),
  );
  addRemoteOptions(command, { isReading: true });
  addConnectionHelp(addRunWatchOptions(command)).action((files: string[], flags: RawFlags) => importCommand(files, flags, run));
}

/**
 * One import from the command line: the ledger opened once, here, for the saved mappings, the remote
 * sheets' claims, the run, its audit entry and a failed notification's record; Ctrl-C winds the run
 * down; the report, the warnings, the exit code and what --notify-on says.
 */
async function importCommand(files: string[], flags: RawFlags, run: CliRun): Promise<void> {
  const options = resolveFlags(flags);
  const logger = loggerFor(options);
  const { recordRunIn } = await import('../audit/record-run.js');
  // A ledger that cannot be opened stops the command here (exit 2); one that fails once open stops the run (exit 3).
  const ledger = await openCommandLedger(options, logger);
  let isLedgerLost = false;
  try {
    const interruption = onInterrupt(
      'order-batch: interrupted: sending no more orders; the ones in flight finish and the results are written',
    );
    const { result, exitCode } = await importThroughRemote(files, options, ledger, {
      logger,
      warn: (line) => run.warn(line),
      run: { progress: byteProgressOf(options), orderProgress: orderProgressOf(options), signal: interruption.signal },
      onRunEnded: interruption.dispose,
      async record(result, kept) {
        await run.printReport(result.report, options, formatValidateText);
        if (result.ledgerFailure) run.warn(result.ledgerFailure.message);
        if (kept) await recordRunIn(kept, result.report, { logger, ref: result.runId ?? null });
        if (result.apiUnusable) run.warn(result.apiUnusable.message);
        if (result.interrupted) run.warn('the run was interrupted; run the same command again to send the orders not sent.');
      },
    });
    isLedgerLost = result.ledgerFailure !== undefined;
    run.exitCode = exitCode;
  } catch (error) {
    await ledger.close().catch(() => undefined);
    throw error;
  }
  // A ledger the run already lost is said once, in the report; closing it again says nothing new.
  await ledger.close().catch((error: unknown) => {
    if (!isLedgerLost) throw error;
  });
}

/** What the command line and the scheduler each add to an import: their logger and warnings, progress or a stop signal, their record of the run. */
export interface ImportCaller {
  logger: Logger;
  warn: (line: string) => void;
  run: Pick<ImportOptions, 'progress' | 'orderProgress' | 'signal' | 'onRunStarted'>;
  /** The run itself has ended, before its results are put in place (the command line lets go of Ctrl-C here). */
  onRunEnded?: () => void;
  /** With the results in place: the report told and the run recorded, in its ledger unless the run lost it (`kept` undefined). */
  record(result: ImportResult, kept: Ledger | undefined): Promise<void>;
}

/**
 * One import on the ledger its entry point opened, the same from the command line and the scheduler:
 * remote sheets made local and claimed, the run, its results put back, the caller's record of it, then
 * the notification and the metrics file (told with the ledger still open, its run lock released).
 */
export async function importThroughRemote(files: string[], options: ResolvedOptions, ledger: Ledger, caller: ImportCaller): Promise<{ result: ImportResult; exitCode: number }> {
  const [{ runImport }, { prepareRemoteRun }] = await Promise.all([import('../import/run-import.js'), import('../remote/remote-run.js')]);
  const remote = await prepareRemoteRun({ command: 'import', files, out: options.out, archive: options.archiveDir }, remoteContextOf(options, ledger));
  for (const line of remote.warnings) caller.warn(line);
  // Watched from before the run: its API requests and ledger errors are in its metrics file.
  const watch = await watchRun(options, caller.logger, caller.warn);
  // The run lock is the run's alone: released when the run ends, before the results are put in place and anyone is notified.
  // Settings that fail (an unknown --mapping) let go of the remote inputs as a failed run does: an open
  // connection would keep the process from ever ending.
  const result = await importSettingsOf(options, remote.files, ledger)
    .then((settings) => runImport({ ...settings, out: remote.out, archiveDir: remote.archive, logger: caller.logger, ...caller.run }))
    .finally(caller.onRunEnded)
    .catch(remote.abandon)
    .catch((error: unknown) => {
      watch.drop();
      throw error;
    });
  await remote.finish(result.report).finally(remote.close);
  const kept = result.ledgerFailure ? undefined : ledger;
  await caller.record(result, kept);
  const exitCode = importExitCode(result);
  await watch.finish({ command: 'import', runId: result.runId ?? null, exitCode, report: result.report, ledger: kept });
  return { result, exitCode };
}
