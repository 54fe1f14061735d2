/**
 * A PostgreSQL cluster of one test's own, which the test stops with an immediate shutdown (a crash,
 * as far as clients can tell) and starts again on the same data and socket: a database outage.
 * The shared cluster (global-setup.ts) is never stopped under the other tests.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { APP_PASSWORD, APP_ROLE, SUPERUSER } from './cluster.js';

const NOBODY = 65534;

export interface RestartableCluster {
  /** A ledger URL for a fresh database of its own, with the test role's password. */
  url: string;
  /** pg_ctl stop -m immediate: every connection dropped at once, nothing cleaned up. */
  crash(): void;
  start(): void;
  /** Stops the server and removes its folder. */
  remove(): void;
}

export async function startRestartableCluster(bindir: string): Promise<RestartableCluster> {
  // Short: a unix socket path may be at most 107 bytes.
  const dir = mkdtempSync('/tmp/obpgr-');
  const data = join(dir, 'data');
  const isRoot = process.getuid?.() === 0;
  if (isRoot) chownSync(dir, NOBODY, NOBODY);
  const run = (command: string, args: string[]) => {
    const [file, argv] = isRoot ? ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', join(bindir, command), ...args]] : [join(bindir, command), args];
    execFileSync(file, argv, { cwd: dir, env: { ...process.env, HOME: dir, LC_ALL: 'C', TZ: 'UTC' }, stdio: ['ignore', 'pipe', 'pipe'] });
  };
  run('initdb', ['-D', data, '-U', SUPERUSER, '--auth=trust', '--no-sync', '--no-instructions', '-E', 'UTF8']);
  if (isRoot) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
  writeFileSync(join(data, 'pg_hba.conf'), `local all ${SUPERUSER} trust\nlocal all all scram-sha-256\n`);
  if (isRoot) chownSync(join(data, 'pg_hba.conf'), NOBODY, NOBODY);
  // synchronous_commit stays on (PostgreSQL's default): off, an immediate shutdown loses commits it had
  // already acknowledged, which no client can survive (an order marked as being sent, then sent, would
  // come back unmarked and go out twice). fsync off is safe here: the crash is the server's, not the OS's.
  const options = `-c listen_addresses='' -c unix_socket_directories=${dir} -c fsync=off -c max_connections=100`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'postgres.log'), '-w', '-t', '30', 'start']);
  const crash = () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  const client = new pg.Client({ host: dir, user: SUPERUSER, database: 'postgres' });
  await client.connect();
  await client.query(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD '${APP_PASSWORD}'`);
  await client.query(`CREATE DATABASE ledger OWNER ${APP_ROLE}`);
  await client.end();
  return {
    url: `postgresql://${APP_ROLE}:${encodeURIComponent(APP_PASSWORD)}@/ledger?host=${dir}`,
    crash,
    start,
    remove() {
      try {
        crash();
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
