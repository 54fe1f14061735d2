/**
 * The sandbox: a faithful local imitation of the fulfillment API (PRODUCT.md section 7), used by
 * the demo, `import --sandbox`, `order-batch sandbox` and the tests.
 */
import type { AddressInfo } from 'node:net';
import { DEFAULT_SOURCES_OF_SALE } from '../contract/enums.js';
import { createOrderSchema } from '../contract/schemas.js';
import { UsageError } from '../errors.js';
import { silentLogger } from '../log.js';
import { createTokenService } from './auth.js';
import { buildSeededCatalogue } from './catalogue.js';
import { createSandboxClock } from './clock.js';
import { parseApiInstant } from './dates.js';
import { createFaultInjector, faultsFromRate, REAL_LATENCY_CLOCK } from './faults.js';
import type { SandboxContext } from './http/context.js';
import { buildSandboxServer } from './http/server.js';
import { createInFlightCounter } from './in-flight.js';
import { readInventoryFile } from './inventory-file.js';
import { DEFAULT_RATES, type FulfillmentRates } from './model.js';
import { SANDBOX_DEFAULTS, type SandboxHandle, type SandboxOptions, type SandboxStats } from './options.js';
import { createStateWriter, loadStateFile, stockFromJson, stockToJson, type PersistedState } from './persistence.js';
import { createSandboxState } from './state.js';

export type { SandboxHandle, SandboxOptions, SandboxStats } from './options.js';
export type { FaultSettings } from './faults.js';
export type { FulfillmentRates } from './model.js';
export type { ClientCredentials } from './auth.js';
export { SANDBOX_DEFAULTS } from './options.js';
export { buildSeededCatalogue, listCatalogueProducts, CATALOGUE_IDS, FULFILLMENT_CENTER_IDS, type Catalogue, type Product } from './catalogue.js';

function checkRate(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0 && value <= 1)) {
    throw new UsageError(`sandbox ${name} must be a number from 0 to 1, got ${value}`);
  }
}

function checkOptions(options: SandboxOptions): void {
  const { port, seed, latencyMs, tokenTtlSeconds } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new UsageError(`sandbox port must be 0..65535, got ${port}`);
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new UsageError(`sandbox seed must be a whole number, got ${seed}`);
  if (latencyMs !== undefined && !(Number.isInteger(latencyMs) && latencyMs >= 0)) throw new UsageError(`sandbox latency must be a whole number of ms >= 0, got ${latencyMs}`);
  if (tokenTtlSeconds !== undefined && !(Number.isInteger(tokenTtlSeconds) && tokenTtlSeconds > 0)) {
    throw new UsageError(`sandbox token TTL must be a whole number of seconds > 0, got ${tokenTtlSeconds}`);
  }
  checkRate('fault rate', options.faultRate);
  for (const [name, value] of Object.entries(options.rates ?? {})) checkRate(`${name} rate`, value);
  if (options.clientId === '' || options.clientSecret === '') throw new UsageError('sandbox client id and secret must not be empty');
}

function startMsOf(startTime: Date | string): number {
  const ms = startTime instanceof Date ? startTime.getTime() : parseApiInstant(startTime);
  if (ms === null || Number.isNaN(ms)) throw new UsageError(`sandbox start time is not an ISO 8601 date-time: ${String(startTime)}`);
  return ms;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  checkOptions(options);
  const seed = options.seed ?? SANDBOX_DEFAULTS.seed;
  const logger = options.logger ?? silentLogger;
  const catalogue = options.inventoryPath ? await readInventoryFile(options.inventoryPath) : buildSeededCatalogue();
  const saved = options.statePath ? await loadStateFile(options.statePath) : null;

  let startMs = options.startTime === undefined ? undefined : startMsOf(options.startTime);
  if (saved) {
    // The saved world's clock, moved on by the real time since (unless frozen). It never runs
    // backwards: orders created "in the future" of a restarted clock would read as empty.
    const resumed = options.freezeClock ? saved.simulatedNowMs : Date.now() + (saved.simulatedNowMs - saved.savedAtMs);
    startMs = Math.max(startMs ?? resumed, resumed);
  }
  const clock = createSandboxClock({ startMs, frozen: options.freezeClock ?? false });

  const rates: FulfillmentRates = { ...DEFAULT_RATES, ...options.rates };
  const state = createSandboxState(catalogue, { seed, rates, products: catalogue.products });
  if (saved) state.restore(saved.orders, stockFromJson(saved.stock), saved.counters);

  const writer = { clientId: options.clientId ?? SANDBOX_DEFAULTS.clientId, clientSecret: options.clientSecret ?? SANDBOX_DEFAULTS.clientSecret };
  const reader = options.readOnlyClient ?? { ...SANDBOX_DEFAULTS.readOnlyClient };
  if (reader.clientId === writer.clientId) throw new UsageError('the read-only client must have a different client id');
  const tokens = createTokenService({ writer, reader, ttlSeconds: options.tokenTtlSeconds ?? SANDBOX_DEFAULTS.tokenTtlSeconds, nowMs: clock.nowMs });
  const faults = createFaultInjector(seed, faultsFromRate(options.faultRate, options.latencyMs));

  const postsInFlight = createInFlightCounter();
  const stats = (): SandboxStats => ({
    orders: state.orderCount(),
    postsReceived: state.counters.postsReceived,
    duplicatesRejected: state.counters.duplicatesRejected,
    maxPostsInFlight: postsInFlight.max,
    byStatus: state.countLineStatuses(clock.nowMs()),
  });
  const snapshot = (): PersistedState => ({
    format: 'order-batch-sandbox-state',
    version: 1,
    savedAtMs: Date.now(),
    simulatedNowMs: clock.nowMs(),
    orders: state.listOrders(),
    stock: stockToJson(state.stock),
    counters: { ...state.counters },
  });
  const stateWriter = options.statePath
    ? createStateWriter(options.statePath, snapshot, (error) => logger.error({ err: error }, 'could not write the sandbox state file'))
    : null;
  if (stateWriter) state.onChange = () => stateWriter.schedule();

  const sourcesOfSale = options.sourcesOfSale ?? DEFAULT_SOURCES_OF_SALE;
  const latencyClock = options.latencyClock ?? REAL_LATENCY_CLOCK;
  const ctx: SandboxContext = { state, clock, tokens, faults, latencyClock, schema: createOrderSchema(sourcesOfSale), logger, postsInFlight, stats };
  const app = await buildSandboxServer(ctx, { logRequests: options.logRequests ?? false });
  const host = options.host ?? SANDBOX_DEFAULTS.host;
  try {
    await app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`sandbox cannot listen on ${host}:${options.port ?? 0}: ${code ?? String(error)}`, { cause: error });
  }
  const port = (app.server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closed: Promise<void> | null = null;

  return {
    url,
    port,
    clientId: writer.clientId,
    clientSecret: writer.clientSecret,
    readOnlyClient: { ...reader },
    close() {
      closed ??= (async () => {
        stateWriter?.flush();
        await app.close();
      })();
      return closed;
    },
    advanceClock(hours) {
      clock.advance(hours);
      state.onChange?.();
    },
    now: () => new Date(clock.nowMs()),
    stats,
    setFaults: (settings) => faults.set(settings),
    reset: () => state.reset(),
  };
}
