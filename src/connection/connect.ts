/**
 * Where the API is: the embedded sandbox (--sandbox) or the configured base URL. The tool never
 * guesses where to send real orders: with neither, it stops and says how to set both.
 */
import { createHash } from 'node:crypto';
import { createApiClient } from '../api/client.js';
import type { ApiClient } from '../api/types.js';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { redactUrl } from '../redact.js';
import { type Ledger, localFolderOf, parseLedgerLocation } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { ConnectionSettings } from '../options.js';
import { SANDBOX_DEFAULTS, startSandbox } from '../sandbox/index.js';
import { openSharedSandbox, type SharedSandbox } from './shared-sandbox.js';

export interface Connection {
  client: ApiClient;
  /** Where requests go, for logs and the Summary sheet (never credentials). */
  baseUrl: string;
  isSandbox: boolean;
  /** The embedded sandbox's simulated clock (absent for a real API). */
  sandboxNow?: () => Promise<Date>;
  /** Moves the embedded sandbox's clock (the demo, the web app's page); resolves with the new time. */
  advanceSandboxClock?: (hours: number) => Promise<Date>;
  close(): Promise<void>;
}

export const MISSING_CONNECTION_MESSAGE =
  'No fulfillment API is configured. Set FULFILLMENT_BASE_URL, FULFILLMENT_CLIENT_ID and FULFILLMENT_CLIENT_SECRET ' +
  '(or baseUrl, clientId and clientSecret in --config), or add --sandbox to try it against the built-in sandbox.';

/**
 * A ledger remembers which API it records orders for: orders accepted by the sandbox must never
 * pass for orders sent to the real network, nor orders of one account for another's. The address
 * is kept without its password (a ledger's settings are no place for one).
 */
export function endpointIdentity(connection: Connection): string {
  return connection.isSandbox ? 'sandbox' : redactUrl(connection.baseUrl.replace(/\/+$/, ''));
}

export async function connect(options: {
  connection: ConnectionSettings;
  useSandbox: boolean;
  /** The embedded sandbox's clock starts here (so --now and the sandbox agree). */
  sandboxStart?: Date;
  /**
   * Keep the embedded sandbox's orders and clock here, so import and reconcile runs share one world:
   * one sandbox per state file, hosted by the first process and shared by the others (shared-sandbox.ts).
   */
  sandboxStatePath?: string;
  concurrency: number;
  logger: Logger;
}): Promise<Connection> {
  const clientFor = (baseUrl: string, clientId: string, clientSecret: string) =>
    createApiClient({ baseUrl, clientId, clientSecret, auth: options.connection.auth, connections: Math.max(options.concurrency, 4), logger: options.logger });
  if (options.useSandbox) {
    const sandbox = options.sandboxStatePath
      ? await openSharedSandbox({ statePath: options.sandboxStatePath, ...(options.sandboxStart ? { startTime: options.sandboxStart } : {}), logger: options.logger })
      : await startPrivateSandbox(options.sandboxStart);
    const client = clientFor(sandbox.url, SANDBOX_DEFAULTS.clientId, SANDBOX_DEFAULTS.clientSecret);
    options.logger.info({ baseUrl: sandbox.url }, 'using the embedded sandbox');
    return {
      client,
      baseUrl: sandbox.url,
      isSandbox: true,
      sandboxNow: () => sandbox.now(),
      advanceSandboxClock: (hours: number) => sandbox.advanceClock(hours),
      async close() {
        await client.close();
        await sandbox.close();
      },
    };
  }
  const { baseUrl, clientId, clientSecret } = options.connection;
  if (!baseUrl) throw new UsageError(MISSING_CONNECTION_MESSAGE);
  if (!clientId || !clientSecret) {
    throw new UsageError('FULFILLMENT_CLIENT_ID and FULFILLMENT_CLIENT_SECRET must both be set (or clientId and clientSecret in --config).');
  }
  const client = clientFor(baseUrl, clientId, clientSecret);
  return { client, baseUrl, isSandbox: false, close: () => client.close() };
}

/**
 * The embedded sandbox keeps its world beside the (sandbox) ledger: a file's folder; for a PostgreSQL
 * one, a folder of this host's .order-batch named for that database (without its password), so two
 * ledgers never share one sandbox's orders.
 */
export function sandboxStatePathFor(ledgerPath: string): string {
  const where = parseLedgerLocation(ledgerPath);
  if (where.backend === 'sqlite') return join(localFolderOf(ledgerPath), 'sandbox-state.json');
  const database = createHash('sha256').update(redactUrl(where.url)).digest('hex').slice(0, 16);
  return join(localFolderOf(ledgerPath), `sandbox-${database}`, 'sandbox-state.json');
}

const ENDPOINT_KEY = 'endpoint';

/** Ties a ledger to the API it records orders for on first use, and refuses to mix them later. */
export async function bindLedgerToEndpoint(ledger: Ledger, identity: string): Promise<void> {
  const stored = await ledger.getSetting(ENDPOINT_KEY);
  // Compared and kept without a password, also in a ledger that stored one before.
  const bound = stored === null ? null : redactUrl(stored);
  if (bound !== null && bound !== identity) {
    throw new UsageError(
      `The ledger ${ledger.location} records orders sent to ${bound}, not ${identity}. ` +
        'Use --ledger <file> to keep a separate ledger for each API (the sandbox has its own by default).',
    );
  }
  if (stored !== identity) await ledger.setSetting(ENDPOINT_KEY, identity);
}

/**
 * The connection a command uses with a ledger: the given one (tests, the web app), or a new one
 * whose embedded sandbox keeps its world beside the ledger. Either way the ledger is bound to it.
 */
export async function connectWithLedger(
  ledger: Ledger,
  options: { connection: ConnectionSettings; useSandbox: boolean; ledgerPath: string; sandboxStart?: Date; concurrency: number; logger: Logger; connectionOverride?: Connection },
): Promise<Connection> {
  const connection =
    options.connectionOverride ??
    (await connect({
      connection: options.connection,
      useSandbox: options.useSandbox,
      sandboxStart: options.sandboxStart,
      sandboxStatePath: sandboxStatePathFor(options.ledgerPath),
      concurrency: options.concurrency,
      logger: options.logger,
    }));
  try {
    await bindLedgerToEndpoint(ledger, endpointIdentity(connection));
  } catch (err) {
    if (!options.connectionOverride) await connection.close();
    throw err;
  }
  return connection;
}

/** A sandbox of this process alone, with no state file (the demo's). */
async function startPrivateSandbox(startTime: Date | undefined): Promise<Pick<SharedSandbox, 'url' | 'now' | 'advanceClock' | 'close'>> {
  const sandbox = await startSandbox({ port: 0, startTime });
  return {
    url: sandbox.url,
    now: async () => sandbox.now(),
    advanceClock: async (hours) => (sandbox.advanceClock(hours), sandbox.now()),
    close: () => sandbox.close(),
  };
}
