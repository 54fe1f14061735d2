#!/usr/bin/env -S node --max-semi-space-size=64
/**
 * The only place that reads argv and the environment, prints, and sets the exit code.
 * Each command is a function taking typed options and returning a result (src/commands/).
 */
import { Command, CommanderError, Option } from 'commander';
import { AuthError, ForbiddenError, isRetryable } from './api/errors.js';
import { EXIT, ApiUnusableError, InputError, OutputError, UsageError, describeFileFailure } from './errors.js';
import { createLogger, silentLogger, type Logger } from './log.js';
import { parseHours, parseSince, resolveOptions, type RawFlags, type ResolvedOptions } from './options.js';
import { LedgerBusyError, LedgerError } from './ledger/errors.js';
import { createByteProgress, createOrderProgress } from './commands/progress.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeJsonReport } from './commands/json-report.js';
import { formatReconcileText, formatValidateText } from './commands/text-report.js';
import { formatOutputErrors, importExitCode, validateExitCode } from './commands/outcome.js';

const VERSION = '0.1.0';
// Each command's modules are imported when it runs: `--help` and `sandbox` do not pay for exceljs,
// SQLite and fastify they never use, and every run of a nightly job starts sooner.

function loggerFor(options: ResolvedOptions): Logger {
  if (options.logLevel === 'silent') return silentLogger;
  return createLogger({ level: options.logLevel, pretty: Boolean(process.stderr.isTTY) });
}

function resolve(flags: RawFlags): ResolvedOptions {
  return resolveOptions(flags, process.env, new Date());
}

function addCommonOptions(cmd: Command, extra: { sheet?: boolean; sheetHelp?: string; out?: boolean } = {}): Command {
  if (extra.out !== false) cmd.option('--out <path>', 'result file (.xlsx or .csv), or a folder when several files are given');
  cmd
    .option('--json', 'print the machine-readable report on stdout (logs go to stderr)')
    .option('--now <iso>', 'evaluate date rules as of this instant (default: now)')
    .option('--timezone <iana>', 'zone for dates written without an offset (default UTC)')
    .option('--config <file>', 'JSON config file (sourcesOfSale, timezone, baseUrl, clientId, ledger, ...: see the README)')
    .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent'));
  if (extra.sheet !== false) cmd.option('--sheet <name>', extra.sheetHelp ?? 'worksheet of an xlsx file (default: the first visible one; the Fix sheet of a result workbook)');
  return cmd;
}

/**
 * The first Ctrl-C or SIGTERM (a cron job's timeout) asks the command to wind down and say so; a
 * second one quits at once, which the ledger makes safe (the next run looks up what was in flight).
 */
function onInterrupt(message: string): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(128 + (name === 'SIGINT' ? 2 : 15));
    // A person at a terminal presses Ctrl-C; a service manager sends SIGTERM and, if need be, SIGKILL.
    const again = name === 'SIGINT' ? 'press Ctrl-C again to quit at once' : 'a second SIGTERM quits at once';
    process.stderr.write(`\n${message} (${again}).\n`);
    controller.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/**
 * For a command that writes files but has nothing to wind down: Ctrl-C or SIGTERM quits at once,
 * through process.exit, so the exit hook of report/atomic-file.ts removes any half-written
 * `.partial` file (a signal's default action would skip it).
 */
function exitOnSignal(): void {
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
}

/** Set once a command printed its --json report: an error after it must not print a second object. */
let hasPrintedJson = false;

/** Prints a --json object; a report's orders one by one (a validate of millions of orders is never one string). */
async function printJson(value: object): Promise<void> {
  hasPrintedJson = true;
  await writeJsonReport(value, process.stdout);
}

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
  let exitCode: number = EXIT.ok;
  const program = new Command()
    .name('order-batch')
    .description('Move orders from spreadsheets into the fulfillment network, and bring shipment results back.')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  addCommonOptions(
    program
      .command('validate')
      .description('check order sheets offline and write a result file beside each')
      .argument('<file...>', 'CSV or XLSX order sheets, or folders of them')
      .option('--online', 'also ask the API: unknown products, stock, orders it already has')
      .option('--sandbox', 'with --online: ask the embedded sandbox')
      .option('--ledger <path>', 'with --online: the ledger that tells our own orders apart'),
  ).action(async (files: string[], flags: RawFlags) => {
    exitOnSignal();
    const options = resolve(flags);
    const logger = loggerFor(options);
    const { validateFiles } = await import('./commands/validate.js');
    const result = await validateFiles({
      files,
      out: options.out,
      sheet: options.sheet,
      context: { now: options.now, timezone: options.timezone, sourcesOfSale: options.sourcesOfSale },
      online: options.online
        ? { connection: options.connection, useSandbox: options.useSandbox, ledgerPath: options.ledgerPath, maxAttempts: options.maxAttempts, concurrency: options.concurrency }
        : undefined,
      logger,
      progress: options.json ? undefined : createByteProgress(process.stderr),
    });
    if (options.json) await printJson(result.report);
    else process.stdout.write(formatValidateText(result.report));
    process.stderr.write(formatOutputErrors(result.report));
    exitCode = validateExitCode(result);
  });

  addCommonOptions(
    program
      .command('import')
      .description('validate, submit the valid orders, and write a result file beside each sheet')
      .argument('<file...>', 'CSV or XLSX order sheets, or folders of them')
      .option('--concurrency <n>', 'orders sent at once (default 8)')
      .option('--max-attempts <n>', 'attempts per order for transient failures (default 6)')
      .option('--dry-run', 'do everything but send the orders')
      .option('--sandbox', 'start the embedded sandbox and send the orders there')
      .option('--ledger <path>', 'the ledger file (default .order-batch/ledger.db; the sandbox has its own)')
      .option('--archive <dir>', 'move each processed sheet and its result here once every order is settled'),
  ).action(async (files: string[], flags: RawFlags) => {
    const options = resolve(flags);
    const logger = loggerFor(options);
    const interruption = onInterrupt(
      'order-batch: interrupted: sending no more orders; the ones in flight finish and the results are written',
    );
    const { importFiles } = await import('./commands/import.js');
    const result = await importFiles({
      files,
      out: options.out,
      sheet: options.sheet,
      context: { now: options.now, timezone: options.timezone, sourcesOfSale: options.sourcesOfSale },
      connection: options.connection,
      useSandbox: options.useSandbox,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      dryRun: options.dryRun,
      ledgerPath: options.ledgerPath,
      archiveDir: options.archiveDir,
      logger,
      progress: options.json ? undefined : createByteProgress(process.stderr),
      orderProgress: options.json ? undefined : createOrderProgress(process.stderr),
      signal: interruption.signal,
    }).finally(interruption.dispose);
    if (options.json) await printJson(result.report);
    else process.stdout.write(formatValidateText(result.report));
    process.stderr.write(formatOutputErrors(result.report));
    if (result.apiUnusable) process.stderr.write(`order-batch: ${result.apiUnusable.message}\n`);
    if (result.interrupted) process.stderr.write('order-batch: the run was interrupted; run the same command again to send the orders not sent.\n');
    exitCode = importExitCode(result);
  });

  addCommonOptions(
    program
      .command('reconcile')
      .description('pull orders, packages and tracking; write the reconciliation workbook')
      .option('--since <iso>', 'orders the ledger submitted since this instant (default: the last 30 days)')
      .option('--hours <n>', 'orders the ledger submitted in the last n hours (n from 1)')
      .option('--orders <result file>', 'the orders of a validate/import result file (no ledger needed)')
      .option('--all', 'every order the API lists, no ledger needed: the last 30 days, or --since / --hours rounded up to whole days (at most 365)')
      .option('--late-after-days <n>', 'a line not shipped this many whole days after its order date is late (default 3)')
      .option('--confirmations <csv>', 'also write tracking confirmations for the marketplaces')
      .option('--concurrency <n>', 'requests at once (default 8)')
      .option('--max-attempts <n>', 'attempts per request for transient failures (default 6)')
      .option('--sandbox', 'use the embedded sandbox (with the orders import --sandbox sent)')
      .option('--ledger <path>', 'the ledger file (default .order-batch/ledger.db; the sandbox has its own)'),
    { sheet: true, sheetHelp: 'with --orders: the worksheet of an xlsx result file (default: its Results sheet)' },
  ).action(async (flags: RawFlags & { since?: string; hours?: string; orders?: string; all?: boolean; confirmations?: string }) => {
    // Nothing of a reconcile is kept until its workbook is written: stopping is always safe.
    exitOnSignal();
    const options = resolve(flags);
    const logger = loggerFor(options);
    const hours = flags.hours === undefined ? undefined : parseHours(flags.hours);
    const since = flags.since === undefined ? undefined : parseSince(flags.since);
    const { reconcileCommand } = await import('./commands/reconcile.js');
    const result = await reconcileCommand({
      connection: options.connection,
      useSandbox: options.useSandbox,
      ledgerPath: options.ledgerPath,
      now: options.now,
      isNowPinned: options.isNowPinned,
      since,
      hours,
      ordersFile: flags.orders,
      all: flags.all,
      out: options.out,
      confirmationsPath: flags.confirmations,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      lateAfterDays: options.lateAfterDays,
      sheet: options.sheet,
      timezone: options.timezone,
      logger,
    });
    if (options.json) await printJson(result.report);
    else process.stdout.write(formatReconcileText(result.report));
    process.stderr.write(formatOutputErrors(result.report));
    exitCode = result.report.outputErrors?.length ? EXIT.usage : result.hasExceptions ? EXIT.someFailed : EXIT.ok;
  });

  program
    .command('demo')
    .description('the whole loop on the embedded sandbox: import the samples, let them ship, reconcile (npm start)')
    .option('--out <dir>', 'where the demo writes its files', 'demo-output')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', 'warn')
    .action(async (flags: RawFlags) => {
      const options = resolve(flags);
      const { runDemo } = await import('./commands/demo.js');
      await runDemo({
        samplesDir: join(dirname(fileURLToPath(import.meta.url)), '..', 'samples'),
        outDir: options.out ?? 'demo-output',
        logger: loggerFor(options),
        print: (line) => process.stdout.write(`${line}\n`),
      });
    });

  addCommonOptions(
    program
      .command('serve')
      .description('the local web app for operations staff')
      .option('--port <n>', 'port to listen on (0 picks a free one)', '8080')
      .option('--host <host>', 'address to bind (default: this computer only)', '127.0.0.1')
      .option('--sandbox', "send orders to one embedded sandbox for the server's lifetime")
      .option('--ledger <path>', 'the ledger file (default .order-batch/ledger.db; the sandbox has its own)')
      .option('--concurrency <n>', 'orders sent at once (default 8)')
      .option('--max-attempts <n>', 'attempts per order for transient failures (default 6)')
      .option('--late-after-days <n>', 'reconciliations: a line not shipped this many whole days after its order date is late (default 3)')
      .option('--max-upload-mb <n>', 'largest sheet accepted, in MB (default 50)'),
    { out: false, sheet: false },
  ).action(async (flags: RawFlags & { port?: string; host?: string; maxUploadMb?: string }) => {
    const options = resolve(flags);
    const port = Number(flags.port ?? '8080');
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number from 0 to 65535, not "${flags.port}".`);
    const maxUploadMb = Number(flags.maxUploadMb ?? '50');
    if (!Number.isFinite(maxUploadMb) || maxUploadMb < 1 || maxUploadMb > 1024) throw new UsageError(`--max-upload-mb takes a size from 1 to 1024, not "${flags.maxUploadMb}".`);
    const { runServe } = await import('./web/server.js');
    const app = await runServe({
      port,
      host: flags.host ?? '127.0.0.1',
      useSandbox: options.useSandbox,
      connection: options.connection,
      ledgerPath: options.ledgerPath,
      context: { now: options.now, timezone: options.timezone, sourcesOfSale: options.sourcesOfSale },
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      lateAfterDays: options.lateAfterDays,
      maxUploadBytes: Math.round(maxUploadMb * 1024 * 1024),
      logger: loggerFor(options),
      ...(options.isNowPinned ? { now: options.now } : {}),
      print: (line: string) => process.stdout.write(`${line}\n`),
    });
    // As the CLI's import: the first Ctrl-C or SIGTERM sends nothing more and lets the answers in
    // flight come back (the submission's result is written); a second one quits at once.
    const interruption = onInterrupt(
      'order-batch: stopping: sending no more orders; the ones in flight finish, the result is written and queued submissions do not start',
    );
    await new Promise<void>((done) => interruption.signal.addEventListener('abort', () => done(), { once: true }));
    const { describeStopped } = await import('./web/jobs.js');
    for (const line of describeStopped(await app.close())) process.stderr.write(`order-batch: ${line}\n`);
    interruption.dispose();
  });

  program
    .command('template')
    .description('write the blank order template')
    .addOption(new Option('--format <format>', 'xlsx or csv (default: from --out, else xlsx)').choices(['xlsx', 'csv']))
    .option('--out <path>', 'where to write it (default order-template.xlsx or .csv)')
    .option('--config <file>', 'JSON config file (its sourcesOfSale feed the dropdown)')
    .action(async (flags: RawFlags & { format?: 'xlsx' | 'csv' }) => {
      exitOnSignal();
      const options = resolve(flags);
      const { templateCommand } = await import('./commands/template.js');
      const path = await templateCommand({ format: flags.format, out: options.out, sourcesOfSale: options.sourcesOfSale });
      process.stdout.write(`${path}\n`);
    });

  program
    .command('sandbox')
    .description('run the local imitation of the fulfillment API')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8787')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--client-id <id>', 'client id the sandbox accepts')
    .option('--client-secret <secret>', 'client secret the sandbox accepts')
    .option('--seed <n>', 'seed for the simulated fulfillment and faults', '1')
    .option('--state <file>', 'keep the sandbox state in this file across restarts')
    .option('--latency-ms <n>', 'added latency per request')
    .option('--fault-rate <p>', 'share of requests answered 429/5xx or reset (0 to 1)')
    .option('--token-ttl <seconds>', 'lifetime of issued tokens')
    .action(async (flags: Record<string, string | undefined>) => {
      const num = (name: string, value: string | undefined, opts: { min: number; max: number; integer?: boolean }): number | undefined => {
        if (value === undefined) return undefined;
        const n = Number(value);
        if (!Number.isFinite(n) || n < opts.min || n > opts.max || (opts.integer && !Number.isInteger(n))) {
          throw new UsageError(`--${name} takes ${opts.integer ? 'a whole number' : 'a number'} from ${opts.min} to ${opts.max}, not "${value}".`);
        }
        return n;
      };
      const { runSandbox } = await import('./sandbox/main.js');
      const server = await runSandbox({
        port: num('port', flags.port, { min: 0, max: 65535, integer: true }),
        host: flags.host,
        clientId: flags.clientId,
        clientSecret: flags.clientSecret,
        seed: num('seed', flags.seed, { min: 0, max: 2 ** 31, integer: true }),
        statePath: flags.state,
        latencyMs: num('latency-ms', flags.latencyMs, { min: 0, max: 600_000, integer: true }),
        faultRate: num('fault-rate', flags.faultRate, { min: 0, max: 1 }),
        tokenTtlSeconds: num('token-ttl', flags.tokenTtl, { min: 1, max: 86_400 * 365, integer: true }),
        print: (line: string) => process.stdout.write(`${line}\n`),
      });
      await new Promise<void>((resolveStop) => {
        const stop = () => {
          void server.close().then(resolveStop);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    const failure = reportError(err);
    const jsonCommand = jsonCommandOf(argv);
    // `--json > logs/x.json` must hold one JSON object whatever happened, and never two.
    if (failure.kind !== null && jsonCommand !== null && !hasPrintedJson) {
      await printJson({ command: jsonCommand, error: { kind: failure.kind, message: failure.message }, exitCode: failure.exitCode });
    }
    return failure.exitCode;
  }
}

/** What stopped a run, for `--json`: kind null for --help and --version, which are no failure. */
interface Failure {
  exitCode: number;
  kind: 'usage' | 'file' | 'api_unusable' | 'internal' | null;
  message: string;
}

/** Prints the one line on stderr for what stopped the run and says what it was. */
function reportError(err: unknown): Failure {
  if (err instanceof CommanderError) {
    // Commander has already printed its message; --help and --version end here with code 0.
    if (err.exitCode === 0) return { exitCode: EXIT.ok, kind: null, message: '' };
    return { exitCode: EXIT.usage, kind: 'usage', message: err.message.replace(/^error: /, '') };
  }
  if (err instanceof UsageError || err instanceof InputError) {
    process.stderr.write(`order-batch: ${err.message}\n`);
    // A file that cannot be used (an input, a result to write, a ledger that is no ledger), unlike a
    // flag, a setting or another run holding the ledger.
    const isFile = err instanceof InputError || err instanceof OutputError || (err instanceof LedgerError && !(err instanceof LedgerBusyError));
    return { exitCode: EXIT.usage, kind: isFile ? 'file' : 'usage', message: err.message };
  }
  if (err instanceof AuthError || err instanceof ForbiddenError || isRetryable(err)) {
    const message = `the fulfillment API could not be used: ${(err as Error).message}`;
    process.stderr.write(`order-batch: ${message}\n`);
    return { exitCode: EXIT.apiUnusable, kind: 'api_unusable', message };
  }
  if (err instanceof ApiUnusableError) {
    process.stderr.write(`order-batch: ${err.message}\n`);
    return { exitCode: EXIT.apiUnusable, kind: 'api_unusable', message: err.message };
  }
  // A file the run could not use (a folder not writable, a full disk) is the machine's state, not a bug.
  const fileProblem = describeFileFailure(err);
  if (fileProblem !== null) {
    process.stderr.write(`order-batch: ${fileProblem}\n`);
    return { exitCode: EXIT.usage, kind: 'file', message: fileProblem };
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`order-batch: internal error: ${message}\nThis is a bug; please report it with the command you ran (add --log-level debug for details).\n`);
  if (process.env.ORDER_BATCH_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return { exitCode: EXIT.someFailed, kind: 'internal', message: `internal error: ${message}` };
}

const code = await main(process.argv.slice(2));
process.exitCode = code;
