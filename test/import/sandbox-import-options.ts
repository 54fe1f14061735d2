/** runImport options for a test against a sandbox over real HTTP: two lanes, two attempts, fast backoff, no logs. */
import type { ImportAtOptions } from '../support/run-import-at.js';
import { silentLogger } from '../../src/log.js';

export function sandboxImportOptions(
  api: { url: string; clientId: string; clientSecret: string },
  base: Pick<ImportAtOptions, 'context' | 'ledgerPath'>,
  overrides: Partial<ImportAtOptions> = {},
): ImportAtOptions {
  return {
    files: [],
    ...base,
    connection: { auth: 'oauth', baseUrl: api.url, clientId: api.clientId, clientSecret: api.clientSecret },
    useSandbox: false,
    concurrency: 2,
    maxAttempts: 2,
    dryRun: false,
    logger: silentLogger,
    backoff: { baseMs: 1, maxMs: 5 },
    ...overrides,
  };
}
