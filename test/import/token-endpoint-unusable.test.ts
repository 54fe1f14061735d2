/**
 * A base URL whose token endpoint answers 404 (or a login page) is "the API could not be used":
 * import fails its orders, still writes the result file and report and exits 3, as for an API that
 * is down; validate --online stops with the error the CLI prints as exit 3. Never an internal error.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/api/errors.js';
import { runImportAt } from '../support/run-import-at.js';
import { importExitCode } from '../../src/run-report/exit-code.js';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('token-endpoint');
const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

let server: TestServer;
beforeAll(async () => {
  // No route is scripted: every request, the token request included, gets the server's 404.
  server = await startTestServer();
});
afterAll(() => server.close());

const connection = () => ({ baseUrl: `${server.url}/foo`, clientId: 'client-7', clientSecret: 'secret-value', auth: 'oauth' as const });

describe('a token endpoint that answers 404', () => {
  it('import: fails the orders, writes the result file and the report, and exits 3 as for an API that is down', async () => {
    const sheet = at('import.csv');
    writeOrdersCsv(sheet, { orders: 2, prefix: 'TKN', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const result = await runImportAt({
      files: [sheet],
      context,
      connection: connection(),
      useSandbox: false,
      concurrency: 2,
      maxAttempts: 2,
      dryRun: false,
      ledgerPath: at('ledger.db'),
      logger: silentLogger,
    });
    expect(result.report.summary).toEqual({ failed: 2 });
    expect(result.apiUnusable?.message).toContain(`The token endpoint ${server.url}/foo/api/v0/oauth/token answered 404`);
    expect(result.apiUnusable?.message).toContain('FULFILLMENT_BASE_URL');
    expect(importExitCode(result)).toBe(3);
    expect(existsSync(at('import.import-result.xlsx'))).toBe(true);
    expect(result.report.output).toBe(at('import.import-result.xlsx'));
    expect(server.requestsTo('POST', '/foo/api/v0/orders')).toHaveLength(0);
  });

  it('validate --online: stops with an AuthError (endpoint), which the CLI reports as exit 3', async () => {
    const sheet = at('validate.csv');
    writeOrdersCsv(sheet, { orders: 1, prefix: 'TKV', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const error = await runValidate({
      files: [sheet],
      context,
      logger: silentLogger,
      online: { connection: connection(), useSandbox: false, ledgerPath: at('no-ledger.db'), maxAttempts: 2, concurrency: 2 },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ reason: 'endpoint', status: 404 });
    expect((error as Error).message).toContain(`${server.url}/foo/api/v0/oauth/token answered 404`);
  });
});
