/**
 * A throwaway OpenSSH server for the tests: `/usr/sbin/sshd -D -e` on 127.0.0.1 and a free port, with
 * its own host key, one user key (the user running the tests: sshd not run as root can log in no one
 * else), the authorized keys in the temp folder and the internal SFTP server. Missing sshd skips the
 * tests with a message outside CI and fails them in CI.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';
const SSH_KEYGEN = '/usr/bin/ssh-keygen';

/** Why the sshd tests cannot run here, or null. In CI a missing server is an error, never a skip. */
export function sshdMissing(): string | null {
  const missing = [SSHD, SSH_KEYGEN].filter((p) => !existsSync(p));
  if (missing.length === 0) return null;
  const reason = `${missing.join(' and ')} not installed (apt-get install openssh-server openssh-client)`;
  if (process.env.CI) throw new Error(`The SFTP tests must run in CI, but ${reason}.`);
  process.stderr.write(`\nSFTP tests skipped: ${reason}.\n\n`);
  return reason;
}

export interface Sshd {
  port: number;
  user: string;
  /** The user's private key, for --ssh-key. */
  userKey: string;
  /** A known_hosts file that holds the server's key. */
  knownHosts: string;
  /** The server's public key line (`ssh-ed25519 AAAA...`). */
  hostPublicKey: string;
  /** sftp://user@127.0.0.1:port */
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function makeKey(path: string): string {
  execFileSync(SSH_KEYGEN, ['-q', '-t', 'ed25519', '-N', '', '-C', '', '-f', path]);
  return readFileSync(`${path}.pub`, 'utf8').trim();
}

/** Starts sshd in `dir` (created); resolves once it listens. */
export async function startSshd(dir: string): Promise<Sshd> {
  mkdirSync(dir, { recursive: true });
  const hostPublicKey = makeKey(join(dir, 'host_key'));
  const userPublicKey = makeKey(join(dir, 'user_key'));
  writeFileSync(join(dir, 'authorized_keys'), `${userPublicKey}\n`, { mode: 0o600 });
  // Privilege separation wants its empty folder; as root it may not exist yet in a container.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const config = join(dir, 'sshd_config');
    writeFileSync(config, [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'MaxStartups 100',
      'MaxSessions 100',
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'));
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    const started = await waitForListening(child);
    if (started === true) {
      const knownHosts = join(dir, 'known_hosts');
      writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostPublicKey}\n`);
      const user = userInfo().username;
      return { port, user, userKey: join(dir, 'user_key'), knownHosts, hostPublicKey, url: `sftp://${user}@127.0.0.1:${port}`, stop: () => stopChild(child) };
    }
    // Another process took the port between the probe and sshd's bind: try another, a few times.
    if (attempt >= 5 || !/Address already in use/.test(started)) throw new Error(`sshd did not start: ${started}`);
  }
}

function waitForListening(child: ChildProcess): Promise<true | string> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve(`no "Server listening" within 20 s: ${text}`), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (/Server listening on/.test(text)) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(`exited with ${code}: ${text}`);
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
