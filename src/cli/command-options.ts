/**
 * From flags to each command's typed options. `resolveOptions` (src/options.ts) merges flags,
 * environment, config file and defaults; the helpers here hand each command the part of the
 * result it shares with the others, so no command copies those fields one by one.
 */
import { Command, Option } from 'commander';
import type { Connection } from '../connection/connect.js';
import { createByteProgress, createOrderProgress, type OrderProgress, type Progress } from '../progress.js';
import { UsageError } from '../errors.js';
import { createLogger, silentLogger, type Logger } from '../log.js';
import { resolveOptions, type ConnectionSettings, type RawFlags, type ResolvedOptions } from '../options.js';
import type { CheckContext } from '../orders/types.js';
import type { ReadSettings } from '../validate/check-file.js';
import { resolveMappingChoice } from '../mapping/profile-file.js';
import { type Ledger, redactLedgerLocation } from '../ledger/index.js';
import { heldOpen } from '../mapping/ledger-access.js';
import { createMappingStore } from '../mapping/mapping-store.js';
import type { Profile } from '../mapping/profile.js';

export function resolveFlags(flags: RawFlags): ResolvedOptions {
  return resolveOptions(flags, processEnvironment(), new Date());
}

/** The process's environment, for what resolves options later (a scheduler resolves each run's own). */
export function processEnvironment(): Record<string, string | undefined> {
  return process.env;
}

/**
 * The AWS SDK warns on every run under Node 20 about its own future releases; order-batch supports
 * Node 20 with the SDK it ships, so the warning is noise in a cron job's mail. The SDK reads only this switch.
 */
export function quietAwsSdkNotice(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** ORDER_BATCH_DEBUG: print the stack of an internal error (a bug) under its one line, for a bug report. */
export function wantsBugStack(): boolean {
  return Boolean(process.env.ORDER_BATCH_DEBUG);
}

export function loggerFor(options: ResolvedOptions): Logger {
  if (options.logLevel === 'silent') return silentLogger;
  const isTerminal = Boolean(process.stderr.isTTY);
  return createLogger({ level: options.logLevel, pretty: isTerminal, colorize: isTerminal && options.isColorAllowed });
}

/** How orders are checked: the instant and zone of the date rules, the accepted sources of sale, the date order. */
export function checkContextOf(options: ResolvedOptions): CheckContext {
  return { now: options.now, timezone: options.timezone, sourcesOfSale: options.sourcesOfSale, ...(options.dateOrder && { dateOrder: options.dateOrder }) };
}

/**
 * How sheets are read: the mapping profile (or detection among the built-in ones and those saved in
 * the command's ledger), the decimal mark, whether the date order was set for this run.
 */
export async function readSettingsOf(options: ResolvedOptions, use: SavedProfilesUse = {}): Promise<ReadSettings> {
  const saved = await savedProfilesOf(options, use);
  return {
    mapping: resolveMappingChoice(options.mapping, saved),
    ...(options.decimalComma && { decimalMark: 'comma' as const }),
    isDateOrderForced: options.isDateOrderForced,
  };
}

/** The ledger the command opened (none: no ledger exists, and only the built-in profiles are known). */
export interface SavedProfilesUse {
  ledger?: Ledger;
  /** The command stops on the ledger itself when it fails (import): nothing is said here. */
  needsLedger?: boolean;
}

/**
 * The mappings saved in the command's ledger. A ledger that cannot be read for them does not stop a run
 * that only reads sheets: it is said, and the built-in profiles are used. A command that needs the ledger
 * anyway (import) says nothing here: it stops on the ledger itself, with the one line that names the problem.
 */
export async function savedProfilesOf(options: ResolvedOptions, use: SavedProfilesUse = {}): Promise<Profile[]> {
  if (!use.ledger) return [];
  try {
    return (await createMappingStore(heldOpen(use.ledger)).list()).map((m) => m.profile);
  } catch (error) {
    if (!use.needsLedger) sayMappingsUnread(options.ledgerPath, error);
    return [];
  }
}

/** The one line said when the ledger's saved mappings cannot be read: the run goes on with the built-in profiles. */
export function sayMappingsUnread(ledgerPath: string, error: unknown): void {
  const why = (error as Error).message.replace(/[.?!]+$/, '');
  process.stderr.write(`order-batch: the mappings saved in the ledger ${redactLedgerLocation(ledgerPath)} could not be read (${why}); only the built-in profiles are known.\n`);
}

/** --mapping, --date-order and --decimal-comma, for the commands that read order sheets. */
export function addReadOptions(cmd: Command): Command {
  return cmd
    .option('--mapping <name|file|none>', 'read the sheets with this mapping profile (a built-in or saved name, or a .json file); none: the template\'s columns only (default: detect from the headers)')
    .option('--date-order <mdy|dmy>', 'how 05/11/2026 is read: mdy (month first, the default) or dmy (day first, also 24.11.2026)')
    .option('--decimal-comma', 'the comma is the decimal mark (12,50), whatever the file shows');
}

/** What every command that talks to the API needs: where it is, the ledger, and how hard to push it. */
export interface ApiSettings {
  connection: ConnectionSettings;
  useSandbox: boolean;
  ledgerPath: string;
  /** How long a run's claims on a PostgreSQL ledger outlive its last sign of life. */
  claimLeaseMs: number;
  /** How long a lost PostgreSQL ledger is waited for before the run stops. */
  ledgerOutageMs: number;
  concurrency: number;
  maxAttempts: number;
  connectionOverride?: Connection;
}

export function apiSettingsOf(options: ResolvedOptions): ApiSettings {
  return {
    connection: options.connection,
    useSandbox: options.useSandbox,
    ledgerPath: options.ledgerPath,
    claimLeaseMs: options.claimLeaseMs,
    ledgerOutageMs: options.ledgerOutageMs,
    concurrency: options.concurrency,
    maxAttempts: options.maxAttempts,
  };
}

/** A progress bar on stderr while a big sheet is read, unless stdout carries the --json report. */
export function byteProgressOf(options: ResolvedOptions): Progress | undefined {
  return options.json ? undefined : createByteProgress(process.stderr);
}

/** A progress bar on stderr while orders are sent, unless stdout carries the --json report. */
export function orderProgressOf(options: ResolvedOptions): OrderProgress | undefined {
  return options.json ? undefined : createOrderProgress(process.stderr);
}

/** How validate, import, reconcile and serve describe the options they share: each says what the option does for it. */
export interface CommonOptionsHelp {
  /** --out: the file written, or false for a command that writes none (serve). */
  out: string | false;
  /** --json: false for a command that prints no report (serve). */
  json?: boolean;
  now: string;
  timezone: string;
  /** --sheet, or false for a command that reads no sheet from the command line. */
  sheet: string | false;
}

/** The shared options' help of a command that reads order sheets and writes a result beside each (`suffix`: result, import-result). */
export function sheetCommandHelp(suffix: string): CommonOptionsHelp {
  return {
    out: `result file (.xlsx or .csv; default: <sheet>.${suffix}.xlsx beside each sheet), or a folder for the results of several sheets`,
    now: 'evaluate date rules as of this instant (default: now)',
    timezone: 'zone for dates written without an offset (default UTC)',
    sheet: 'worksheet of an xlsx file (default: the first visible one; the Fix sheet of a result workbook)',
  };
}

/** The options validate, import, reconcile and serve share (PRODUCT.md section 1). */
export function addCommonOptions(cmd: Command, help: CommonOptionsHelp): Command {
  if (help.out !== false) cmd.option('--out <path>', help.out);
  if (help.json !== false) cmd.option('--json', 'print the machine-readable report on stdout (logs go to stderr)');
  cmd
    .option('--now <iso>', help.now)
    .option('--timezone <iana>', help.timezone)
    .option('--config <file>', 'JSON config file (sourcesOfSale, timezone, baseUrl, clientId, ledger, ...: see the README)')
    .addOption(new Option('--log-level <level>', 'how much the log on stderr says: fatal, error, warn, info (default), debug, trace or silent'));
  if (help.sheet !== false) cmd.option('--sheet <name>', help.sheet);
  return cmd;
}

/**
 * Where a command that talks to the API finds it, said at the end of its --help: a newcomer reading
 * `import --help` learns how to point it at the API (or try the sandbox) without the README.
 */
export function addConnectionHelp(cmd: Command): Command {
  return cmd.addHelpText(
    'after',
    [
      '',
      'The API, from the environment (or baseUrl, clientId, clientSecret, auth in --config):',
      "  FULFILLMENT_BASE_URL       the API's address, such as https://api.example.com",
      '  FULFILLMENT_CLIENT_ID      the client id it gave you',
      '  FULFILLMENT_CLIENT_SECRET  its secret (never printed or logged)',
      '  FULFILLMENT_AUTH           oauth (default) or getToken',
      'Without them, --sandbox tries it all on the embedded sandbox.',
    ].join('\n'),
  );
}

/** A number flag of serve or sandbox within [min, max]; undefined when the flag is absent. */
export function parseNumberFlag(name: string, value: string | undefined, range: { min: number; max: number; integer?: boolean }): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < range.min || n > range.max || (range.integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} takes ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}, not "${value}".`);
  }
  return n;
}
