/**
 * A throwaway PostgreSQL cluster for the tests, from the distribution's own package (Debian's
 * `postgresql`): initdb into a temp dir, a unix socket in that dir and no TCP port, fsync off. It runs
 * as an unprivileged user (initdb and postgres refuse root: as root they run as uid 65534 through
 * setpriv), and a detached watchdog stops it and removes the dir as soon as the process that started
 * it is gone, however it went (a finished run, Ctrl-C, kill -9).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The unprivileged account root runs the cluster as (Debian's nobody / nogroup). */
const NOBODY = 65534;
/** Superuser of the cluster (trusted on the socket) and the role the ledger tests log in as (password). */
export const SUPERUSER = 'postgres';
export const APP_ROLE = 'order_batch_test';
export const APP_PASSWORD = 'pg-test-s3cret';
/** A unix socket path may be at most 107 bytes; `/.s.PGSQL.5432` takes 15 of them. */
const SOCKET_PATH_MAX = 107;
const SOCKET_FILE = '.s.PGSQL.5432';
const START_TIMEOUT_MS = 30_000;

export interface PostgresCluster {
  /** The directory holding the unix socket (the `host` of a connection). */
  socketDir: string;
  version: string;
  startMs: number;
  stop(): Promise<void>;
}

/** Where the server binaries are: Debian keeps them off the PATH, under /usr/lib/postgresql/<major>/bin. */
export function findPostgresBin(): string | null {
  // The binaries of another build, or none at all (a folder without them: how CI without PostgreSQL is tried).
  const given = process.env.ORDER_BATCH_TEST_PG_BIN;
  if (given !== undefined) return existsSync(join(given, 'initdb')) && existsSync(join(given, 'postgres')) ? given : null;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
    for (const major of majors) if (existsSync(join(root, major, 'bin', 'initdb'))) return join(root, major, 'bin');
  }
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const bindir = fromConfig.status === 0 ? fromConfig.stdout.trim() : '';
  return bindir && existsSync(join(bindir, 'initdb')) && existsSync(join(bindir, 'postgres')) ? bindir : null;
}

/** A short temp dir: the socket path must fit in 107 bytes whatever TMPDIR is. */
function makeClusterDir(): string {
  for (const base of [tmpdir(), '/tmp']) {
    const dir = mkdtempSync(join(base, 'obpg-'));
    if (join(dir, SOCKET_FILE).length <= SOCKET_PATH_MAX) return dir;
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error('No temp dir short enough for a unix socket path (107 bytes).');
}

export async function startCluster(bindir: string): Promise<PostgresCluster> {
  const started = performance.now();
  const dir = makeClusterDir();
  const isRoot = process.getuid?.() === 0;
  // As root everything runs as nobody, who must own the dir; a normal user runs the binaries directly.
  const asUser = (command: string, args: string[]): [string, string[]] =>
    isRoot ? ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', command, ...args]] : [command, args];
  if (isRoot) chownSync(dir, NOBODY, NOBODY);
  const data = join(dir, 'data');
  const env = { ...process.env, HOME: dir, LC_ALL: 'C', TZ: 'UTC' };
  const [initdb, initArgs] = asUser(join(bindir, 'initdb'), ['-D', data, '-U', SUPERUSER, '--auth=trust', '--no-sync', '--no-instructions', '-E', 'UTF8']);
  try {
    execFileSync(initdb, initArgs, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    // The superuser is trusted on the socket (the harness creates databases); everyone else gives a
    // password, so the tests meet real authentication (a wrong password is refused).
    writeFileSync(join(data, 'pg_hba.conf'), `local all ${SUPERUSER} trust\nlocal all all scram-sha-256\n`);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? String(error)}`);
  }
  const settings = {
    listen_addresses: '',
    unix_socket_directories: dir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '300',
    shared_buffers: '64MB',
    logging_collector: 'off',
  };
  const [postgres, pgArgs] = asUser(join(bindir, 'postgres'), ['-D', data, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])]);
  const log = join(dir, 'postgres.log');
  const logFd = openSync(log, 'a');
  // Detached: a Ctrl-C to the terminal's process group must not take the server down before teardown.
  const server = spawn(postgres, pgArgs, { cwd: dir, env, stdio: ['ignore', logFd, logFd], detached: true });
  server.unref();
  const serverPid = server.pid!;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  startWatchdog(process.pid, serverPid, dir);
  try {
    await waitUntilReady(data, server, log);
  } catch (error) {
    await stopServer(server, exited, dir);
    throw error;
  }
  const version = execFileSync(join(bindir, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
  let stopped = false;
  return {
    socketDir: dir,
    version,
    startMs: performance.now() - started,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopServer(server, exited, dir);
    },
  };
}

/** postmaster.pid's eighth line reads "ready" once the server accepts connections (as pg_ctl -w checks). */
async function waitUntilReady(data: string, server: ChildProcess, log: string): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) throw new Error(`postgres exited at start:\n${readFileSync(log, 'utf8')}`);
    try {
      const lines = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n');
      if (lines[7]?.trim() === 'ready') return;
    } catch {
      // Not written yet.
    }
    await sleep(10);
  }
  throw new Error(`postgres did not become ready in ${START_TIMEOUT_MS / 1000} s:\n${readFileSync(log, 'utf8')}`);
}

/** Immediate shutdown (SIGQUIT): nothing in the cluster is worth a checkpoint. Then the dir goes. */
async function stopServer(server: ChildProcess, exited: Promise<void>, dir: string): Promise<void> {
  if (server.exitCode === null && server.signalCode === null) {
    server.kill('SIGQUIT');
    const late = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(late);
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A shell loop in its own session that outlives whatever kills the test run: once `ownerPid` is
 * gone it stops the server and removes the dir. It exits by itself when the server is gone.
 */
function startWatchdog(ownerPid: number, serverPid: number, dir: string): void {
  const script = `
    while kill -0 ${ownerPid} 2>/dev/null && kill -0 ${serverPid} 2>/dev/null; do sleep 0.5; done
    kill -QUIT ${serverPid} 2>/dev/null
    for i in $(seq 1 100); do kill -0 ${serverPid} 2>/dev/null || break; sleep 0.1; done
    kill -KILL ${serverPid} 2>/dev/null
    rm -rf '${dir}'`;
  const watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
}
