/** `order-batch validate <file...>`: flags to ValidateOptions, the report printed, the exit code. */
import type { Command } from 'commander';
import { formatValidateText } from '../run-report/text.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { addCommonOptions, addConnectionHelp, addReadOptions, readSettingsOf, apiSettingsOf, sheetCommandHelp, byteProgressOf, checkContextOf, loggerFor, resolveFlags } from './command-options.js';
import { validateExitCode } from '../run-report/exit-code.js';
import { exitOnSignal } from './signals.js';
import { addRemoteOptions, remoteContextOf } from './remote-options.js';
import { openExistingLedger, openLedgerIfReadable, withCommandLedger } from './cli-ledger.js';

export function addValidateCommand(program: Command, run: CliRun): void {
  const command = addCommonOptions(
    addReadOptions(program
      .command('validate')
      .description('check order sheets offline and write a result file beside each')
      .argument('<file...>', 'CSV or XLSX order sheets, or folders of them')
      .option('--online', 'also ask the API: unknown products, stock, orders it already has')
      .option('--sandbox', 'with --online: ask the embedded sandbox')
      .option('--ledger <path|url>', 'the ledger (a file or a postgres:// URL; default .order-batch/ledger.db): its saved mappings are known; with --online it tells our own orders apart')),
    sheetCommandHelp('result'),
  );
  addRemoteOptions(command, { isReading: true });
  addConnectionHelp(command).action(async (files: string[], flags: RawFlags) => {
    exitOnSignal();
    const options = resolveFlags(flags);
    const { runValidate } = await import('../validate/run-validate.js');
    const logger = loggerFor(options);
    // Opened once, when it exists (a check never creates one): its saved mappings, --online's own orders, the audit entry.
    // --online needs it readable; an offline check goes on with the built-in profiles.
    const ledger = options.online ? await openExistingLedger(options, logger) : await openLedgerIfReadable(options, logger);
    await withCommandLedger(ledger, async () => {
      const { prepareRemoteRun } = await import('../remote/remote-run.js');
      const remote = await prepareRemoteRun({ command: 'validate', files, out: options.out }, remoteContextOf(options));
      for (const line of remote.warnings) run.warn(line);
      // Settings that fail (an unknown --mapping) let go of the remote inputs as a failed run does: an open
      // connection would keep the process from ever ending.
      const result = await readSettingsOf(options, ledger ? { ledger } : {})
        .then((readSettings) =>
          runValidate({
            files: remote.files,
            out: remote.out,
            sheet: options.sheet,
            context: checkContextOf(options),
            readSettings,
            online: options.online ? { ...apiSettingsOf(options), ...(ledger ? { ledger } : {}) } : undefined,
            logger,
            progress: byteProgressOf(options),
          }),
        )
        .catch(remote.abandon);
      await remote.finish(result.report).finally(remote.close);
      await run.printReport(result.report, options, formatValidateText);
      if (ledger) await (await import('../audit/record-run.js')).recordRunIn(ledger, result.report, { logger });
      run.exitCode = validateExitCode(result);
    });
  });
}
