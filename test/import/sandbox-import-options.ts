/** runImport options for a test against a sandbox over real HTTP: two lanes, two attempts, fast backoff, no logs. */
import type { ImportOptions } from '../../src/import/run-import.js';
import { silentLogger } from '../../src/log.js';

export function sandboxImportOptions(
  api: { url: string; clientId: string; clientSecret: string },
  base: Pick<ImportOptions, 'context' | 'ledgerPath'>,
  overrides: Partial<ImportOptions> = {},
): ImportOptions {
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
