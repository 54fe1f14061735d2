/** `order-batch import <file...>`: flags to ImportOptions, Ctrl-C winds the run down, the report and the exit code. */
import type { Command } from 'commander';
import { formatValidateText } from '../run-report/text.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { addCommonOptions, addConnectionHelp, addReadOptions, readSettingsOf, apiSettingsOf, sheetCommandHelp, byteProgressOf, checkContextOf, loggerFor, orderProgressOf, resolveFlags } from './command-options.js';
import { importExitCode } from './exit-codes.js';
import { addRunWatchOptions, watchRun } from './run-watch.js';
import { onInterrupt } from './signals.js';

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
  addConnectionHelp(addRunWatchOptions(command)).action(async (files: string[], flags: RawFlags) => {
    const options = resolveFlags(flags);
    const logger = loggerFor(options);
    const watch = await watchRun(options, logger, (line) => run.warn(line));
    const interruption = onInterrupt(
      'order-batch: interrupted: sending no more orders; the ones in flight finish and the results are written',
    );
    const { importFiles } = await import('../commands/import.js');
    const result = await importFiles({
      ...apiSettingsOf(options),
      files,
      out: options.out,
      sheet: options.sheet,
      context: checkContextOf(options),
      readSettings: await readSettingsOf(options, { needsLedger: true }),
      dryRun: options.dryRun,
      ...(options.teamConcurrency ? { teamConcurrency: options.teamConcurrency } : {}),
      archiveDir: options.archiveDir,
      logger,
      progress: byteProgressOf(options),
      orderProgress: orderProgressOf(options),
      signal: interruption.signal,
    }).finally(interruption.dispose);
    await run.printReport(result.report, options, formatValidateText);
    if (result.ledgerFailure) run.warn(result.ledgerFailure.message);
    else {
      const { recordCliRun } = await import('../audit/record-run.js');
      await recordCliRun(options.ledgerPath, result.report, { logger, ref: result.runId ?? null, isLedgerOptional: options.dryRun });
    }
    if (result.apiUnusable) run.warn(result.apiUnusable.message);
    if (result.interrupted) run.warn('the run was interrupted; run the same command again to send the orders not sent.');
    run.exitCode = importExitCode(result);
    await watch.finish({ command: 'import', runId: result.runId ?? null, exitCode: run.exitCode, report: result.report });
  });
}
