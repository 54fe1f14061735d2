#!/usr/bin/env -S node --max-semi-space-size=64
/**
 * The entry of the `order-batch` bin. src/cli/ is the only place that reads argv and the
 * environment, prints, and sets the exit code: one file per command turns its flags into typed
 * options, calls the command function (src/commands/) and prints its result; this file builds the
 * program and holds the one catch that turns what stopped a run into one line and an exit code.
 */
import { Command } from 'commander';
import { CliRun } from './cli-run.js';
import { addAuditCommand } from './audit.js';
import { addDemoCommand } from './demo.js';
import { failureOf } from './exit-codes.js';
import { addImportCommand } from './import.js';
import { addLedgerCommand } from './ledger.js';
import { addReconcileCommand } from './reconcile.js';
import { addSandboxCommand } from './sandbox.js';
import { addServeCommand } from './serve.js';
import { addTemplateCommand } from './template.js';
import { addUsersCommand } from './users.js';
import { addValidateCommand } from './validate.js';

const VERSION = '0.1.0';
// Each command's modules are imported when it runs: `--help` and `sandbox` do not pay for exceljs,
// SQLite and fastify they never use, and every run of a nightly job starts sooner.

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

async function main(argv: string[]): Promise<number> {
  const run = new CliRun();
  const program = new Command()
    .name('order-batch')
    .description('Move orders from spreadsheets into the fulfillment network, and bring shipment results back.')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  addValidateCommand(program, run);
  addImportCommand(program, run);
  addReconcileCommand(program, run);
  addDemoCommand(program, run);
  addServeCommand(program, run);
  addTemplateCommand(program, run);
  addSandboxCommand(program, run);
  addLedgerCommand(program, run);
  addUsersCommand(program, run);
  addAuditCommand(program, run);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return run.exitCode;
  } catch (err) {
    const failure = failureOf(err);
    process.stderr.write(failure.stderr);
    if (failure.kind === 'internal' && process.env.ORDER_BATCH_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    const jsonCommand = jsonCommandOf(argv);
    // `--json > logs/x.json` must hold one JSON object whatever happened, and never two.
    if (failure.kind !== null && jsonCommand !== null && !run.hasPrintedJson) {
      run.printJson({ command: jsonCommand, error: { kind: failure.kind, message: failure.message }, exitCode: failure.exitCode });
    }
    return failure.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));
