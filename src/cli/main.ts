#!/usr/bin/env -S node --max-semi-space-size=16
/**
 * The entry of the `order-batch` bin. src/cli/ is the only place that reads argv and the
 * environment, prints, and sets the exit code: one file per command turns its flags into typed
 * options, calls the stage's run function (runImport, runValidate, runReconcile) and prints its result; this file builds the
 * program and holds the one catch that turns what stopped a run into one line and an exit code.
 */
import { Command } from 'commander';
import { CliRun } from './cli-run.js';
import { addAuditCommand } from './audit.js';
import { wantsBugStack } from './command-options.js';
import { dropOutputOnceClosed } from './closed-pipe.js';
import { addDemoCommand } from './demo.js';
import { failureOf } from './exit-codes.js';
import { addImportCommand } from './import.js';
import { addLedgerCommand } from './ledger.js';
import { addMappingCommand } from './mapping.js';
import { addReconcileCommand } from './reconcile.js';
import { addSandboxCommand } from './sandbox.js';
import { addSchedulerCommand } from './schedules.js';
import { addServeCommand } from './serve.js';
import { addTemplateCommand } from './template.js';
import { addTokensCommand } from './tokens.js';
import { addUsersCommand } from './users.js';
import { addValidateCommand } from './validate.js';
import { escapeControlCharactersInLines } from '../terminal-text.js';

const VERSION = '0.1.0';
// Each command's modules are imported when it runs: `--help` and `sandbox` do not pay for exceljs,
// SQLite and fastify they never use, and every run of a nightly job starts sooner.

/** The end of `order-batch --help`: where a newcomer starts, and what the exit codes say. */
const START_HELP = [
  '',
  'Start here:',
  '  order-batch template                      a blank order sheet (order-template.xlsx) to fill in',
  '  order-batch validate orders.xlsx          check it: the result file beside it says what to fix, cell by cell',
  '  order-batch import orders.xlsx --sandbox  send it to the embedded sandbox (the real API: see import --help)',
  '  order-batch demo                          the whole loop on sample orders',
  '',
  'Exit codes: 0 every order valid or accepted; 1 some orders invalid, rejected or failed; 2 a usage, configuration',
  'or file problem; 3 the API could not be used, or the ledger stopped working mid-run. Each command explains',
  'itself: order-batch <command> --help.',
].join('\n');

/** The commands whose --json prints a report (PRODUCT.md section 4). */
const JSON_COMMANDS: ReadonlySet<string> = new Set(['validate', 'import', 'reconcile']);

/**
 * The command a `--json` run asked for, read from argv itself: commander may refuse the command line
 * (an unknown option, a missing file) before any flag is parsed, and the report must still be JSON.
 */
function jsonCommandOf(argv: readonly string[]): string | null {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  const command = args[0];
  return command !== undefined && JSON_COMMANDS.has(command) && args.includes('--json') ? command : null;
}

/**
 * Commander answers `--help` before it looks at the command, so `order-batch archive --help` would show
 * the top-level help and exit 0 as if `archive` were a command. Refused here as commander refuses it
 * without `--help` (exit 2).
 */
function refuseUnknownCommand(program: Command, argv: readonly string[]): void {
  const first = argv[0];
  if (first === undefined || first.startsWith('-') || first === 'help') return;
  if (program.commands.some((c) => c.name() === first || c.aliases().includes(first))) return;
  program.error(`error: unknown command '${first}'`, { code: 'commander.unknownCommand', exitCode: 2 });
}

async function main(argv: string[]): Promise<number> {
  const run = new CliRun();
  const program = new Command()
    .name('order-batch')
    .description('Move orders from spreadsheets into the fulfillment network, and bring shipment results back.')
    .version(VERSION)
    .exitOverride()
    // Commander quotes the arguments it refuses: their control characters are escaped like every other output.
    .configureOutput({ writeErr: (text) => process.stderr.write(escapeControlCharactersInLines(text)) })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', START_HELP);
  addValidateCommand(program, run);
  addImportCommand(program, run);
  addReconcileCommand(program, run);
  addDemoCommand(program, run);
  addServeCommand(program, run);
  addTemplateCommand(program, run);
  addSandboxCommand(program, run);
  addLedgerCommand(program, run);
  addUsersCommand(program, run);
  addTokensCommand(program, run);
  addAuditCommand(program, run);
  addMappingCommand(program, run);
  addSchedulerCommand(program, run);

  try {
    refuseUnknownCommand(program, argv);
    await program.parseAsync(argv, { from: 'user' });
    return run.exitCode;
  } catch (err) {
    const failure = failureOf(err);
    process.stderr.write(escapeControlCharactersInLines(failure.stderr));
    if (failure.kind === 'internal' && wantsBugStack() && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    const jsonCommand = jsonCommandOf(argv);
    // `--json > logs/x.json` must hold one JSON object whatever happened, and never two.
    if (failure.kind !== null && jsonCommand !== null && !run.hasPrintedJson) {
      await run.printJson({ command: jsonCommand, error: { kind: failure.kind, message: failure.message }, exitCode: failure.exitCode });
    }
    return failure.exitCode;
  }
}

// `| head -1` closes stdout early (and `2>&1 | head -1` stderr too): the run ends as it would, quietly.
dropOutputOnceClosed(process.stdout);
dropOutputOnceClosed(process.stderr);
process.exitCode = await main(process.argv.slice(2));
