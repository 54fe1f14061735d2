/**
 * Options flow once: flags, then environment, then the config file, then defaults, merged here into
 * one typed object. Nothing below this module reads process.env or argv.
 */
import { IANAZone } from 'luxon';
import type { AuthFlow } from './api/types.js';
import { DEFAULT_SOURCES_OF_SALE } from './contract/enums.js';
import { toSchedules, type Schedule } from './schedules/schedule-config.js';
import { UsageError } from './errors.js';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { parseLedgerLocation } from './ledger/index.js';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.js';
import type { DateOrder } from './orders/types.js';
import type { NotifySettings } from './notify/notify-run.js';
import { resolveNotifySettings } from './notify/settings.js';
import { checkIssuerUrl, type SsoSettings } from './sso/sso-settings.js';
import type { RemoteSettings } from './remote/stores/store.js';
import { homedir } from 'node:os';
import { join } from 'node:path';

export { readConfigFile, type ConfigFile } from './config-file.js';
import { readConfigFile, type ConfigFile } from './config-file.js';
export { parseTrustProxy, type TrustProxy };

/** Flags as the CLI parsed them (strings as typed, before checking). */
export interface RawFlags {
  out?: string;
  json?: boolean;
  now?: string;
  timezone?: string;
  sheet?: string;
  config?: string;
  logLevel?: string;
  concurrency?: string;
  maxAttempts?: string;
  dryRun?: boolean;
  sandbox?: boolean;
  ledger?: string;
  /** import, serve: POSTs in flight across every run on a PostgreSQL ledger. */
  teamConcurrency?: string;
  /** How long a run's claims on a PostgreSQL ledger outlive its last sign of life, in seconds. */
  claimLease?: string;
  archive?: string;
  online?: boolean;
  /** reconcile, serve: days after the order date when an unshipped line is late. */
  lateAfterDays?: string;
  /** serve: hours a session lasts without a request. */
  sessionIdle?: string;
  /** serve: days uploads and results are kept. */
  retentionDays?: string;
  /** serve: how long a login lasts at most. */
  sessionMax?: string;
  /** serve: behind a TLS reverse proxy: true (bare flag, 1 hop), or the hops or addresses as typed. */
  trustProxy?: boolean | string;
  /** validate, import: a profile's name, a profile file, or `none` (no detection). */
  mapping?: string;
  /** validate, import: `mdy` or `dmy`. */
  dateOrder?: string;
  /** validate, import: the comma is the decimal mark. */
  decimalComma?: boolean;
  /** import, reconcile, serve: notification targets (repeatable). */
  notify?: string[];
  notifyOn?: string;
  publicUrl?: string;
  /** import, reconcile: the run's metrics for node_exporter's textfile collector. */
  metricsFile?: string;
  /** Seconds a run rides through a ledger that stopped answering. */
  ledgerOutage?: string;
  /** serve: the company login's issuer URL. */
  oidcIssuer?: string;
  /** serve: viewer, operator or none. */
  oidcDefaultRole?: string;
  /** serve: the company login only. */
  oidcOnly?: boolean;
  /** Remote locations: the SSH private key file, the known_hosts file, seconds a remote file must be left alone. */
  sshKey?: string;
  knownHosts?: string;
  settle?: string;
}

export interface ConnectionSettings {
  baseUrl?: string;
  clientId?: string;
  clientSecret?: string;
  auth: AuthFlow;
}

export interface ResolvedOptions {
  out?: string;
  json: boolean;
  now: Date;
  /** True when --now was given: the clock is pinned rather than read once at start. */
  isNowPinned: boolean;
  timezone: string;
  sheet?: string;
  logLevel: LogLevel;
  sourcesOfSale: readonly string[];
  concurrency: number;
  maxAttempts: number;
  dryRun: boolean;
  useSandbox: boolean;
  /** The ledger: a file path (SQLite) or a postgres:// URL; by default a file for the real API and another for the sandbox. */
  ledgerPath: string;
  /** POSTs in flight across every run on the ledger (PostgreSQL: all hosts); undefined: no cap but --concurrency. */
  teamConcurrency?: number;
  /** How long a run's claims outlive its last sign of life (PostgreSQL), in ms. */
  claimLeaseMs: number;
  archiveDir?: string;
  online: boolean;
  lateAfterDays: number;
  connection: ConnectionSettings;
  /** serve: how long a session lasts without a request, in ms. */
  sessionIdleMs: number;
  /** serve: how long uploads and results are kept, in days. */
  retentionDays: number;
  /** serve: how long a session lasts at most, however busy, in ms. */
  sessionMaxMs: number;
  /** serve: behind a TLS reverse proxy (which proxies are trusted), or false. */
  trustProxy: TrustProxy | false;
  /** --mapping as given (a profile's name, a file, or `none`); undefined: detect from the headers. */
  mapping?: string;
  /** --date-order (or the config file's dateOrder); undefined: month first, unless a profile says otherwise. */
  dateOrder?: DateOrder;
  /** Whether --date-order was given for this run (it then wins over a profile's dateOrder). */
  isDateOrderForced: boolean;
  /** --decimal-comma. */
  decimalComma: boolean;
  /** False when NO_COLOR is set (to anything but ''): nothing printed for a person is coloured. */
  isColorAllowed: boolean;
  /** Where and when a run's notification goes. */
  notify: NotifySettings;
  metricsFile?: string;
  /** ORDER_BATCH_METRICS_TOKEN: serve's /metrics to others than this computer. */
  metricsToken?: string;
  /** How long a run rides through a PostgreSQL ledger that stopped answering, in ms. */
  ledgerOutageMs: number;
  /** The config file's schedules (none without one). */
  schedules: Schedule[];
  /** serve: the company login, when an issuer is given. */
  oidc?: SsoSettings;
  /** How sftp://, s3:// and https:// locations are reached (src/remote). */
  remote: RemoteSettings;
}

export const DEFAULTS = {
  timezone: 'UTC',
  concurrency: 8,
  maxAttempts: 6,
  ledgerPath: '.order-batch/ledger.db',
  /** The sandbox's orders are never mixed with real ones: its own ledger and its state beside it. */
  sandboxLedgerPath: '.order-batch/sandbox/ledger.db',
  lateAfterDays: 3,
  /** Two minutes: a dead run's orders wait that long for another run; a live run renews well within it. */
  claimLeaseSeconds: 120,
  logLevel: 'info' as LogLevel,
  /** A working day: a session left open overnight has ended by morning. */
  sessionIdleHours: 8,
  /** A long working day: a session kept busy still ends, and its holder logs in again. */
  sessionMaxHours: 12,
  retentionDays: 90,
  /** Two minutes: a database restart or a managed failover is over well within it. */
  ledgerOutageSeconds: 120,
  /** A minute: an upload still in progress has almost always written something within it. */
  settleSeconds: 60,
};


function parsePositiveInt(flag: string, text: string, max: number): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${flag} takes a whole number, not "${text}".`);
  const n = Number(text);
  if (n < 1 || n > max) throw new UsageError(`${flag} must be between 1 and ${max}, not ${n}.`);
  return n;
}

/** A whole number: digits only (a sign allowed, for a clear "must be" message), so "1.5", "2e3" and "" are refused. */
function parseWholeNumber(flag: string, text: string, unit: string): number {
  const trimmed = text.trim();
  if (!/^-?\d+$/.test(trimmed)) throw new UsageError(`${flag} takes a whole number of ${unit}, not "${text}".`);
  return Number(trimmed);
}

/** --ledger-outage: whole seconds, 0 (stop at once, as before) to a day. */
function parseWholeSeconds(flag: string, text: string): number {
  const n = parseWholeNumber(flag, text, 'seconds');
  if (n < 0 || n > 86_400) throw new UsageError(`${flag} must be between 0 and 86400 seconds, not ${n}.`);
  return n;
}

/** reconcile --hours: a window of whole hours, 1 or more. */
export function parseHours(text: string): number {
  const n = parseWholeNumber('--hours', text, 'hours');
  if (n < 1) throw new UsageError(`--hours must be positive (1 hour or more), not ${n}.`);
  return n;
}

/** reconcile and serve --late-after-days: whole days, 0 or more (0: late as soon as it is not shipped). */
export function parseLateAfterDays(text: string): number {
  const n = parseWholeNumber('--late-after-days', text, 'days');
  if (n < 0) throw new UsageError(`--late-after-days must be 0 or more, not ${n}.`);
  return n;
}

/** reconcile --since: an instant. */
export function parseSince(text: string): Date {
  const since = new Date(text);
  if (Number.isNaN(since.getTime())) throw new UsageError(`--since takes an ISO 8601 instant such as 2026-11-01T00:00:00Z, not "${text}".`);
  return since;
}

/** --date-order: mdy (month first) or dmy (day first). */
export function parseDateOrder(text: string, from = '--date-order'): DateOrder {
  const order = text.trim().toLowerCase();
  if (order !== 'mdy' && order !== 'dmy') throw new UsageError(`${from} takes mdy (month first, 11/24/2026) or dmy (day first, 24.11.2026), not "${text}".`);
  return order;
}

export function parseNow(text: string): Date {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`--now takes an ISO 8601 instant such as 2026-11-21T12:00:00Z, not "${text}".`);
  return new Date(ms);
}

/** `from` names where the value was given (a flag, an environment variable, a config file's key). */
export function checkTimezone(zone: string, from = '--timezone'): string {
  if (!IANAZone.isValidZone(zone)) throw new UsageError(`${from} takes an IANA zone such as America/New_York or UTC, not "${zone}".`);
  return zone;
}

/** A URL as a message may quote it: its user and password (`//user:secret@host`) replaced by ***. */
function withoutUserinfo(url: string): string {
  return url.replace(/[^/@\s]+@/, '***@');
}

/** A ledger location (PRODUCT.md section 8): a file path, or a postgres:// or postgresql:// URL. */
function checkLedgerLocation(location: string, from: string): void {
  try {
    parseLedgerLocation(location);
  } catch (error) {
    throw new UsageError(`${from}: ${(error as Error).message}`, { cause: error });
  }
}

function pick<T>(...values: (T | undefined)[]): T | undefined {
  for (const v of values) if (v !== undefined && v !== '') return v;
  return undefined;
}

/** Where the value pick() would take came from, for a message about it: the first source that gives one. */
function sourceOf(...sources: [unknown, string][]): string {
  return sources.find(([v]) => v !== undefined && v !== '')?.[1] ?? sources.at(-1)![1];
}

/**
 * Merge flags, environment and config file. `env` is handed in (the CLI passes process.env) and
 * `wallClock` is the start instant used when --now is absent.
 */
export function resolveOptions(flags: RawFlags, env: Record<string, string | undefined>, wallClock: Date): ResolvedOptions {
  const config: ConfigFile = flags.config ? readConfigFile(flags.config) : {};
  const inConfig = (key: string) => `${key} in config file ${flags.config}`;
  const logLevel = pick(flags.logLevel, env.ORDER_BATCH_LOG_LEVEL, config.logLevel) ?? DEFAULTS.logLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    const from = sourceOf([flags.logLevel, '--log-level'], [env.ORDER_BATCH_LOG_LEVEL, 'ORDER_BATCH_LOG_LEVEL'], [config.logLevel, inConfig('logLevel')]);
    throw new UsageError(`${from} takes one of ${LOG_LEVELS.join(', ')}, not "${logLevel}".`);
  }
  const auth = pick(env.FULFILLMENT_AUTH, config.auth) ?? 'oauth';
  if (auth !== 'oauth' && auth !== 'getToken') {
    throw new UsageError(`${sourceOf([env.FULFILLMENT_AUTH, 'FULFILLMENT_AUTH'], [config.auth, inConfig('auth')])} takes oauth or getToken, not "${auth}".`);
  }
  const baseUrl = pick(env.FULFILLMENT_BASE_URL, config.baseUrl);
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(baseUrl)) {
    const from = sourceOf([env.FULFILLMENT_BASE_URL, 'FULFILLMENT_BASE_URL'], [config.baseUrl, inConfig('baseUrl')]);
    throw new UsageError(`${from} must be an http(s) address such as https://api.example.com, not "${withoutUserinfo(baseUrl)}".`);
  }
  const ledger = pick(flags.ledger, env.ORDER_BATCH_LEDGER, config.ledger);
  if (ledger !== undefined) checkLedgerLocation(ledger, sourceOf([flags.ledger, '--ledger'], [env.ORDER_BATCH_LEDGER, 'ORDER_BATCH_LEDGER'], [config.ledger, inConfig('ledger')]));
  return {
    out: flags.out,
    json: flags.json ?? false,
    now: flags.now ? parseNow(flags.now) : wallClock,
    isNowPinned: Boolean(flags.now),
    timezone: checkTimezone(pick(flags.timezone, config.timezone) ?? DEFAULTS.timezone, sourceOf([flags.timezone, '--timezone'], [config.timezone, inConfig('timezone')])),
    sheet: flags.sheet,
    logLevel: logLevel as LogLevel,
    sourcesOfSale: config.sourcesOfSale ?? DEFAULT_SOURCES_OF_SALE,
    concurrency: flags.concurrency ? parsePositiveInt('--concurrency', flags.concurrency, 64) : (config.concurrency ?? DEFAULTS.concurrency),
    maxAttempts: flags.maxAttempts ? parsePositiveInt('--max-attempts', flags.maxAttempts, 20) : (config.maxAttempts ?? DEFAULTS.maxAttempts),
    dryRun: flags.dryRun ?? false,
    useSandbox: flags.sandbox ?? false,
    ledgerPath: pick(flags.ledger, env.ORDER_BATCH_LEDGER, config.ledger) ?? (flags.sandbox ? DEFAULTS.sandboxLedgerPath : DEFAULTS.ledgerPath),
    teamConcurrency: flags.teamConcurrency ? parsePositiveInt('--team-concurrency', flags.teamConcurrency, 1000) : config.teamConcurrency,
    claimLeaseMs: 1000 * (flags.claimLease ? parsePositiveInt('--claim-lease', flags.claimLease, 86_400) : (config.claimLeaseSeconds ?? DEFAULTS.claimLeaseSeconds)),
    archiveDir: flags.archive,
    online: flags.online ?? false,
    lateAfterDays: flags.lateAfterDays !== undefined ? parseLateAfterDays(flags.lateAfterDays) : (config.lateAfterDays ?? DEFAULTS.lateAfterDays),
    ...(pick(flags.mapping, config.mapping) !== undefined && { mapping: pick(flags.mapping, config.mapping)! }),
    ...(pick(flags.dateOrder, config.dateOrder) !== undefined && { dateOrder: parseDateOrder(pick(flags.dateOrder, config.dateOrder)!, sourceOf([flags.dateOrder, '--date-order'], [config.dateOrder, inConfig('dateOrder')])) }),
    isDateOrderForced: flags.dateOrder !== undefined,
    decimalComma: flags.decimalComma ?? false,
    isColorAllowed: (env.NO_COLOR ?? '') === '',
    schedules: toSchedules(config.schedules ?? []),
    connection: {
      baseUrl,
      clientId: pick(env.FULFILLMENT_CLIENT_ID, config.clientId),
      clientSecret: pick(env.FULFILLMENT_CLIENT_SECRET, config.clientSecret),
      auth,
    },
    sessionIdleMs: 3_600_000 * (flags.sessionIdle !== undefined ? parseSessionIdle(flags.sessionIdle) : (config.sessionIdleHours ?? DEFAULTS.sessionIdleHours)),
    retentionDays: flags.retentionDays !== undefined ? parsePositiveInt('--retention-days', flags.retentionDays, 36_500) : (config.retentionDays ?? DEFAULTS.retentionDays),
    sessionMaxMs: 3_600_000 * (flags.sessionMax !== undefined ? parseSessionIdle(flags.sessionMax, '--session-max') : (config.sessionMaxHours ?? DEFAULTS.sessionMaxHours)),
    trustProxy: flags.trustProxy !== undefined ? parseTrustProxy(flags.trustProxy) : parseTrustProxy(config.trustProxy, inConfig('trustProxy')),
    notify: resolveNotifySettings({ flags, secrets: { smtpUrl: env.ORDER_BATCH_SMTP_URL, webhookSecret: env.ORDER_BATCH_WEBHOOK_SECRET }, config, inConfig }),
    ...(flags.metricsFile ? { metricsFile: flags.metricsFile } : {}),
    ...(pick(env.ORDER_BATCH_METRICS_TOKEN) !== undefined && { metricsToken: env.ORDER_BATCH_METRICS_TOKEN! }),
    ledgerOutageMs: 1000 * (flags.ledgerOutage !== undefined ? parseWholeSeconds('--ledger-outage', flags.ledgerOutage) : (config.ledgerOutageSeconds ?? DEFAULTS.ledgerOutageSeconds)),
    ...resolveSso(flags, env, config),
    remote: resolveRemoteSettings(flags, env),
  };
}

/** --ssh-key / ORDER_BATCH_SSH_KEY, ORDER_BATCH_SSH_PASSWORD, --known-hosts, --settle, the S3 endpoint. */
function resolveRemoteSettings(flags: RawFlags, env: Record<string, string | undefined>): RemoteSettings {
  const sshKeyPath = pick(flags.sshKey, env.ORDER_BATCH_SSH_KEY);
  const sshPassword = pick(env.ORDER_BATCH_SSH_PASSWORD);
  const s3Endpoint = pick(env.AWS_ENDPOINT_URL_S3, env.AWS_ENDPOINT_URL);
  let settleSeconds = DEFAULTS.settleSeconds;
  if (flags.settle !== undefined) {
    settleSeconds = parseWholeNumber('--settle', flags.settle, 'seconds');
    if (settleSeconds < 0) throw new UsageError(`--settle must be 0 or more seconds, not ${settleSeconds}.`);
  }
  return {
    ...(sshKeyPath !== undefined && { sshKeyPath }),
    ...(sshPassword !== undefined && { sshPassword }),
    knownHostsPath: flags.knownHosts ?? join(homedir(), '.ssh', 'known_hosts'),
    settleSeconds,
    ...(s3Endpoint !== undefined && { s3Endpoint }),
  };
}

/** serve's company login: an issuer (flag or config) with ORDER_BATCH_OIDC_CLIENT_ID and ORDER_BATCH_OIDC_CLIENT_SECRET. */
function resolveSso(flags: RawFlags, env: Record<string, string | undefined>, config: ConfigFile): { oidc?: SsoSettings } {
  const issuer = pick(flags.oidcIssuer, config.oidc?.issuer);
  const defaultRole = pick(flags.oidcDefaultRole, config.oidc?.defaultRole) ?? 'viewer';
  if (defaultRole !== 'viewer' && defaultRole !== 'operator' && defaultRole !== 'none') throw new UsageError(`--oidc-default-role takes viewer, operator or none, not "${defaultRole}".`);
  const isOnly = flags.oidcOnly ?? config.oidc?.only ?? false;
  if (issuer === undefined) {
    if (isOnly || flags.oidcDefaultRole !== undefined) throw new UsageError('--oidc-only and --oidc-default-role need the company login: give --oidc-issuer <url>.');
    return {};
  }
  try {
    checkIssuerUrl(issuer);
  } catch {
    throw new UsageError(`--oidc-issuer must be an https:// address such as https://login.example.com (http:// only on this computer), not "${withoutUserinfo(issuer)}".`);
  }
  const clientId = env.ORDER_BATCH_OIDC_CLIENT_ID;
  const clientSecret = env.ORDER_BATCH_OIDC_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw new UsageError('--oidc-issuer needs the client registered at the issuer: set ORDER_BATCH_OIDC_CLIENT_ID and ORDER_BATCH_OIDC_CLIENT_SECRET.');
  return { oidc: { issuer, clientId, clientSecret, defaultRole, isOnly, groupRoles: config.oidc?.groupRoles ?? {} } };
}

/** serve --session-idle and --session-max: hours (8, 0.5, or 30m, 8h, 1d). */
export function parseSessionIdle(text: string, flag = '--session-idle'): number {
  const match = /^(\d+(?:\.\d+)?)\s*([mhd]?)$/i.exec(text.trim());
  const hours = match ? Number(match[1]) * { m: 1 / 60, h: 1, d: 24 }[(match[2] || 'h').toLowerCase() as 'm' | 'h' | 'd'] : Number.NaN;
  if (!(hours >= 1 / 60 && hours <= 24 * 365)) throw new UsageError(`${flag} takes how long a session lasts${flag === '--session-idle' ? ' without use' : ' at most'}, such as 8h, 30m or 1d, not "${text}".`);
  return hours;
}
