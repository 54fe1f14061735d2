/**
 * The config file (`--config file.json`): its schema, checked with zod, and its reading, with errors
 * named by line and column. options.ts merges it under the flags and the environment.
 */
import { z } from 'zod';
import { describeJsonLocation, describeJsonSyntaxError } from './config-file-syntax.js';
import { schedulesSchema } from './schedules/schedule-config.js';
import { UsageError } from './errors.js';
import { readTextFile } from './read-text-file.js';
import { LOG_LEVELS } from './log.js';
import { ROLES } from './ledger/index.js';

/** The config file (`--config file.json`): every key optional; flags and environment win over it. */
const configFileSchema = z
  .strictObject({
    baseUrl: z.string().url().optional(),
    clientId: z.string().optional(),
    clientSecret: z.string().optional(),
    auth: z.enum(['oauth', 'getToken']).optional(),
    timezone: z.string().optional(),
    sourcesOfSale: z.array(z.string().min(1)).min(1).optional(),
    concurrency: z.number().int().min(1).max(64).optional(),
    maxAttempts: z.number().int().min(1).max(20).optional(),
    ledger: z.string().optional(),
    teamConcurrency: z.number().int().min(1).max(1000).optional(),
    claimLeaseSeconds: z.number().int().min(1).max(86_400).optional(),
    lateAfterDays: z.number().min(0).optional(),
    logLevel: z.enum(LOG_LEVELS).optional(),
    /** serve: hours a web session lasts without a request. */
    sessionIdleHours: z.number().positive().max(24 * 365).optional(),
    /** serve: days uploads, results and reconciliations are kept. */
    retentionDays: z.number().int().min(1).max(36_500).optional(),
    /** serve: hours a login lasts at most, however busy (--session-max). */
    sessionMaxHours: z.number().positive().max(24 * 365).optional(),
    /** serve: behind a TLS reverse proxy: true (1 hop), a count of hops, or the proxies' addresses (X-Forwarded-* trusted, Secure cookies). */
    trustProxy: z.union([z.boolean(), z.number().int().min(1).max(32), z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    /** How `05/11/2026` is read when a run says nothing (--date-order): mdy (the default) or dmy. */
    dateOrder: z.enum(['mdy', 'dmy']).optional(),
    /** The mapping profile files and folders are read with when a run names none (--mapping). */
    mapping: z.string().min(1).optional(),
    /** import, reconcile, serve: where each run's notification goes (mailto: or a webhook). */
    notify: z.array(z.string().min(1)).optional(),
    notifyOn: z.enum(['problems', 'always']).optional(),
    /** The web app's address as people reach it, for links in notifications. */
    publicUrl: z.string().min(1).optional(),
    /** How long a run waits for a PostgreSQL ledger that stopped answering before it stops (exit 3). */
    ledgerOutageSeconds: z.number().int().min(0).max(86_400).optional(),
    /** `scheduler` and `serve`: what runs when (PRODUCT.md section 9; src/schedules/). */
    schedules: schedulesSchema.optional(),
    /** serve: the company login (OpenID Connect); flags win over these. */
    oidc: z
      .strictObject({
        issuer: z.string().url().optional(),
        defaultRole: z.enum(['viewer', 'operator', 'none']).optional(),
        only: z.boolean().optional(),
        /** A groups claim value and the role it gives: { "warehouse-leads": "operator" }. */
        groupRoles: z.record(z.string().min(1), z.enum(ROLES)).optional(),
      })
      .optional(),
  });
export type ConfigFile = z.infer<typeof configFileSchema>;

export function readConfigFile(path: string): ConfigFile {
  const text = readTextFile(path, (reason) => new UsageError(`Cannot read config file ${path}: ${reason}.`));
  let json: unknown;
  // Notepad and some editors start a UTF-8 file with a byte order mark, which JSON does not allow.
  const body = text.replace(/^\uFEFF/, '');
  try {
    json = JSON.parse(body);
  } catch {
    // JSON.parse's own message quotes the file's first characters, which may be a secret.
    throw new UsageError(`Config file ${path} is not valid JSON: ${describeJsonSyntaxError(body) ?? 'it could not be read as JSON'}.`);
  }
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const at = first?.path.length ? describeJsonLocation(body, first.path as (string | number)[]) : null;
    const where = first?.path.length ? `${first.path.join('.')}${at ? ` (${at})` : ''}` : '(top level)';
    throw new UsageError(`Config file ${path}: ${where}: ${first?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}
