/**
 * vitest globalSetup: one throwaway PostgreSQL cluster per test run, shared by every test file (each
 * makes its own database in it: see database.ts). Without PostgreSQL installed the PostgreSQL tests
 * skip with a message, except in CI (`CI` set), where they must run and the run fails instead.
 */
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { recordSetupFailure } from '../setup-failure.js';
import { APP_PASSWORD, APP_ROLE, findPostgresBin, startCluster, SUPERUSER, type PostgresCluster } from './cluster.js';

export type PostgresContext = { available: true; socketDir: string; version: string } | { available: false; reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresContext;
  }
}

let cluster: PostgresCluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  try {
    await startForRun(project);
  } catch (error) {
    recordSetupFailure('The PostgreSQL test setup', error);
    throw error;
  }
}

async function startForRun(project: TestProject): Promise<void> {
  const bindir = findPostgresBin();
  if (!bindir) {
    const reason = 'PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin nor in pg_config --bindir); install the postgresql package to run them';
    if (process.env.CI) throw new Error(`The PostgreSQL tests must run in CI, but ${reason}.`);
    process.stderr.write(`\nPostgreSQL tests skipped: ${reason}.\n\n`);
    project.provide('postgres', { available: false, reason });
    return;
  }
  cluster = await startCluster(bindir);
  const client = new pg.Client({ host: cluster.socketDir, user: SUPERUSER, database: 'postgres' });
  await client.connect();
  try {
    await client.query(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD '${APP_PASSWORD}'`);
  } finally {
    await client.end();
  }
  if (process.env.ORDER_BATCH_TEST_PG_TIMING) process.stderr.write(`${cluster.version}: test cluster ready in ${Math.round(cluster.startMs)} ms\n`);
  project.provide('postgres', { available: true, socketDir: cluster.socketDir, version: cluster.version });
}

export async function teardown(): Promise<void> {
  await cluster?.stop();
}
