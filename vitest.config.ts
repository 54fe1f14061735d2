import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One throwaway PostgreSQL cluster per run (skipped with a message when PostgreSQL is missing, outside CI).
    globalSetup: ['./test/support/postgres/global-setup.ts'],
    // Two cores on every machine: keep workers few so end-to-end tests that spawn the CLI do not starve.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
  },
});
