/**
 * From flags to each command's typed options. `resolveOptions` (src/options.ts) merges flags,
 * environment, config file and defaults; the helpers here hand each command the part of the
 * result it shares with the others, so no command copies those fields one by one.
 */
import { Command, Option } from 'commander';
import type { Connection } from '../commands/connect.js';
import { createByteProgress, createOrderProgress, type OrderProgress, type Progress } from '../commands/progress.js';
import { UsageError } from '../errors.js';
import { createLogger, silentLogger, type Logger } from '../log.js';
import { resolveOptions, type ConnectionSettings, type RawFlags, type ResolvedOptions } from '../options.js';
import type { CheckContext } from '../orders/types.js';

export function resolveFlags(flags: RawFlags): ResolvedOptions {
  return resolveOptions(flags, process.env, new Date());
}

export function loggerFor(options: ResolvedOptions): Logger {
  if (options.logLevel === 'silent') return silentLogger;
  return createLogger({ level: options.logLevel, pretty: Boolean(process.stderr.isTTY) });
}

/** How orders are checked: the instant and zone of the date rules and the accepted sources of sale. */
export function checkContextOf(options: ResolvedOptions): CheckContext {
  return { now: options.now, timezone: options.timezone, sourcesOfSale: options.sourcesOfSale };
}

/** What every command that talks to the API needs: where it is, the ledger, and how hard to push it. */
export interface ApiSettings {
  connection: ConnectionSettings;
  useSandbox: boolean;
  ledgerPath: string;
  /** How long a run's claims on a PostgreSQL ledger outlive its last sign of life. */
  claimLeaseMs: number;
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

/** The options validate, import, reconcile and serve share (PRODUCT.md section 1). */
export function addCommonOptions(cmd: Command, extra: { sheet?: boolean; sheetHelp?: string; out?: boolean } = {}): Command {
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

/** A number flag of serve or sandbox within [min, max]; undefined when the flag is absent. */
export function parseNumberFlag(name: string, value: string | undefined, range: { min: number; max: number; integer?: boolean }): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < range.min || n > range.max || (range.integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} takes ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}, not "${value}".`);
  }
  return n;
}
