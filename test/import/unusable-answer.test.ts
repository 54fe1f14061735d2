/**
 * A 2xx whose body is not the API's answer (an HTML page, truncated JSON, JSON of another shape) to
 * import's online checks or validate --online is "the API could not be used" (exit 3), as reconcile
 * says on the same server: never an internal error, never retried as if transient.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpError, isRetryable, isUnusableAnswer, UnusableAnswerError } from '../../src/api/errors.js';
import { runImportAt } from '../support/run-import-at.js';
import { openLedger } from '../../src/ledger/index.js';
import { importExitCode } from '../../src/run-report/exit-code.js';
import { runValidate } from '../../src/validate/run-validate.js';
import { ApiUnusableError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { issueOAuthTokens, json, reset, startTestServer, text, type Reply, type TestServer } from '../support/test-server.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { recordingLogger } from '../support/recording-logger.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('unusable-answer');
const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
  issueOAuthTokens(server);
});
afterEach(() => server.close());

const connection = () => ({ baseUrl: server.url, clientId: 'client-7', clientSecret: 'secret-value', auth: 'oauth' as const });

const BODIES: [string, Reply, RegExp][] = [
  ['an HTML page', text(200, '<!doctype html><html><body>Sign in to continue</body></html>', 'text/html'), /body is not JSON/],
  ['truncated JSON', text(200, '{"data":[{"productId":"PRD-1001","sku":"S', 'application/json'), /body is not JSON/],
  ['JSON of another shape', json(200, { ok: true }), /not the expected shape/],
];

/** The inventory as the spec says, for whichever productId is asked about. */
const inventory: Reply = (req, res) => {
  const productId = req.query.get('productId') ?? 'PRD-1001';
  json(200, { data: [{ productId, sku: productId, upc: '000000000000', name: productId, availableQuantity: 10, fulfillmentCenters: [{ id: 'FC-1', availableQuantity: 10 }] }], pagination: null, requestId: 'r-1' })(req, res);
};

let sheetCount = 0;
function sheet(): string {
  const path = at(`orders-${++sheetCount}.csv`);
  writeOrdersCsv(path, { orders: 2, prefix: `UA${sheetCount}`, orderDate: new Date(NOW.getTime() - 3_600_000) });
  return path;
}

async function importSheet(file: string) {
  return runImportAt({
    files: [file],
    context,
    connection: connection(),
    useSandbox: false,
    concurrency: 2,
    maxAttempts: 3,
    dryRun: false,
    ledgerPath: at(`ledger-${sheetCount}.db`),
    logger: silentLogger,
    backoff: { baseMs: 1, maxMs: 5 },
  });
}

describe('import: a 2xx that is not the API\'s answer', () => {
  for (const [what, reply, says] of BODIES) {
    it(`inventory answered with ${what}: the orders are failed for the next run, the result is written, exit 3, asked once per product`, async () => {
      server.route('GET', '/api/v0/inventory/items', reply);
      server.route('GET', '/api/v0/orders', json(200, { data: [], pagination: null, requestId: 'r-2' }));
      const file = sheet();
      const result = await importSheet(file);

      expect(result.report.summary).toEqual({ failed: 2 });
      expect(result.apiUnusable?.message).toMatch(says);
      expect(result.apiUnusable?.message).toContain(`GET ${server.url}/api/v0/inventory/items`);
      expect(result.apiUnusable?.message).toContain('FULFILLMENT_BASE_URL');
      expect(importExitCode(result)).toBe(3);
      expect(existsSync(file.replace(/\.csv$/, '.import-result.xlsx'))).toBe(true);
      // Not retried: one request per product (PRD-1001 and PRD-1002), however many attempts are allowed.
      expect(server.requestsTo('GET', '/api/v0/inventory/items')).toHaveLength(2);
      expect(server.requestsTo('POST', '/api/v0/orders')).toHaveLength(0);
    });
  }

  it('says in the log (as a cron job keeps it) that nothing was sent and why', async () => {
    server.route('GET', '/api/v0/inventory/items', text(200, '<html>Sign in</html>', 'text/html'));
    server.route('GET', '/api/v0/orders', json(200, { data: [], pagination: null, requestId: 'r-2' }));
    const { logger, lines } = recordingLogger();
    const file = sheet();
    await runImportAt({ files: [file], context, connection: connection(), useSandbox: false, concurrency: 2, maxAttempts: 3, dryRun: false, ledgerPath: at('ledger-log.db'), logger, backoff: { baseMs: 1, maxMs: 5 } });
    const stop = lines.find((l) => l.msg.startsWith('not sending:'));
    expect(stop?.level).toBe(40);
    expect(stop?.msg).toContain('the orders are left for the next run');
  });

  it('the existing-orders lookup answered with an HTML page: exit 3, not an internal error', async () => {
    server.route('GET', '/api/v0/inventory/items', inventory);
    server.route('GET', '/api/v0/orders', text(200, '<html><body>Proxy maintenance</body></html>', 'text/html'));
    const result = await importSheet(sheet());
    expect(result.report.summary).toEqual({ failed: 2 });
    expect(result.apiUnusable?.message).toContain(`GET ${server.url}/api/v0/orders`);
    expect(importExitCode(result)).toBe(3);
    expect(server.requestsTo('GET', '/api/v0/orders')).toHaveLength(1);
    expect(server.requestsTo('POST', '/api/v0/orders')).toHaveLength(0);
  });

  it('the lookup of an order whose POST got no answer is an HTML page: the run stops (exit 3), the order stays unknown, never sent twice', async () => {
    server.route('GET', '/api/v0/inventory/items', inventory);
    server.route('GET', '/api/v0/orders', json(200, { data: [], pagination: null, requestId: 'r-2' }));
    // The first POST is dropped after it arrived: its outcome is unknown, so it is looked up before any resend.
    server.route('POST', '/api/v0/orders', reset(), text(200, 'never asked', 'text/plain'));
    const file = at('one-order.csv');
    const { ids } = writeOrdersCsv(file, { orders: 1, prefix: 'UL', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const id = ids[0]!;
    server.route('GET', `/api/v0/orders/${id}`, text(200, '<html><body>Proxy maintenance</body></html>', 'text/html'));
    const ledgerPath = at('ledger-lookup.db');
    const result = await runImportAt({ files: [file], context, connection: connection(), useSandbox: false, concurrency: 1, maxAttempts: 3, dryRun: false, ledgerPath, logger: silentLogger, backoff: { baseMs: 1, maxMs: 5 } });

    expect(importExitCode(result)).toBe(3);
    expect(result.apiUnusable?.message).toContain(`GET ${server.url}/api/v0/orders/${id}`);
    expect(result.report.summary).toEqual({ failed: 1 });
    expect(server.requestsTo('POST', '/api/v0/orders')).toHaveLength(1);
    expect(server.requestsTo('GET', `/api/v0/orders/${id}`)).toHaveLength(1);
    const ledger = await openLedger(ledgerPath);
    try {
      expect((await ledger.get(id))?.state).toBe('unknown');
    } finally {
      await ledger.close();
    }
  });
});

describe('validate --online: a 2xx that is not the API\'s answer', () => {
  for (const [what, reply, says] of BODIES) {
    it(`inventory answered with ${what}: stops with the error the CLI reports as api_unusable, exit 3`, async () => {
      server.route('GET', '/api/v0/inventory/items', reply);
      server.route('GET', '/api/v0/orders', json(200, { data: [], pagination: null, requestId: 'r-2' }));
      const error = await runValidate({
        files: [sheet()],
        context,
        logger: silentLogger,
        skipResultFile: true,
        online: { connection: connection(), useSandbox: false, ledgerPath: at('no-ledger.db'), maxAttempts: 3, concurrency: 2 },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiUnusableError);
      expect((error as Error).message).toMatch(says);
      expect((error as Error).message).toContain(`GET ${server.url}/api/v0/inventory/items`);
      expect((error as Error).cause).toBeInstanceOf(HttpError);
      expect(server.requestsTo('GET', '/api/v0/inventory/items')).toHaveLength(2);
    });
  }
});

describe('the kind of error', () => {
  const init = { method: 'GET', url: 'http://127.0.0.1:1/api/v0/inventory/items', body: '<html>' };
  it('a 2xx HttpError (as the client throws for a body it cannot use) and an UnusableAnswerError are unusable answers, not retried', () => {
    for (const error of [new HttpError('The API answered 200 OK but the body is not JSON', { ...init, status: 200 }), new UnusableAnswerError('not JSON', { ...init, status: 200 })]) {
      expect(isUnusableAnswer(error)).toBe(true);
      expect(isRetryable(error)).toBe(false);
    }
  });

  it('a non-2xx is not: a 503 is still retried, a 404 is its own error', () => {
    expect(isUnusableAnswer(new HttpError('Service Unavailable', { ...init, status: 503 }))).toBe(false);
    expect(isRetryable(new HttpError('Service Unavailable', { ...init, status: 503 }))).toBe(true);
    expect(isUnusableAnswer(new HttpError('Not Found', { ...init, status: 404 }))).toBe(false);
  });
});
