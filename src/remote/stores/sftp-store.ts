/**
 * An SFTP location through ssh2-sftp-client. The server's host key is checked against known_hosts
 * before anything is authenticated, read or sent: an unknown or changed key stops the connection.
 */
import { readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import SftpClient from 'ssh2-sftp-client';
import { checkHostKey, fingerprintOf, preferredHostKeyAlgorithms, keyTypeOf, knownHostsLine, parseKnownHosts, type HostKeyVerdict } from './known-hosts.js';
import { baseNameOf, joinPath, RemoteError, type RemoteLocation } from '../location.js';
import type { RemoteEntry, RemoteSettings, RemoteStore } from './store.js';

type SftpLocation = Extract<RemoteLocation, { kind: 'sftp' }>;

/** Reads and writes in flight per transfer: fewer, larger requests (OpenSSH serves reads of up to 256 KiB) than ssh2's default 64 of 32 KiB, for less per-request work in JavaScript; see npm run bench -- remote. */
const TRANSFER = { concurrency: 16, chunkSize: 262_144 };

/** Where the server is, redacted: the user and host, never a path's secrets (there are none) nor a password. */
function serverText(location: SftpLocation): string {
  return `sftp://${location.user}@${location.host}${location.port === 22 ? '' : `:${location.port}`}`;
}

function readKnownHosts(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new RemoteError(path, `the known_hosts file cannot be read (${(error as Error).message}); pass another with --known-hosts.`);
  }
}

function hostKeyMessage(location: SftpLocation, verdict: HostKeyVerdict, blob: Buffer, knownHosts: string): string {
  const key = `${keyTypeOf(blob)} key ${fingerprintOf(blob)}`;
  const line = knownHostsLine(location.host, location.port, blob);
  if (verdict.kind === 'revoked') return `the server's ${key} is marked @revoked in ${knownHosts}; nothing was read or sent.`;
  if (verdict.kind === 'changed') {
    return `the server's host key has CHANGED: it offered the ${key}, which is not the one ${knownHosts} holds for it. Nothing was read or sent. ` +
      `If the server's owner confirms the new key's fingerprint, replace its line in ${knownHosts} with: ${line}`;
  }
  return `the server's ${key} is not in ${knownHosts}; nothing was read or sent. Check the fingerprint with the server's owner (ssh-keygen -lf on the server's key), then add this line to ${knownHosts} (or pass --known-hosts): ${line}`;
}

function privateKeyOf(settings: RemoteSettings): Buffer | undefined {
  if (settings.sshKeyPath === undefined) return undefined;
  try {
    return readFileSync(settings.sshKeyPath);
  } catch (error) {
    throw new RemoteError(settings.sshKeyPath, `the SSH key cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass another with --ssh-key or ORDER_BATCH_SSH_KEY.`);
  }
}

/** The one line a connection or transfer failure stands for. */
export function describeSftpError(error: unknown): string {
  const err = error as { code?: string | number; level?: string; message?: string };
  const text = String(err.message ?? error);
  if (err.level === 'client-authentication' || /authentication methods failed|All configured authentication/i.test(text)) {
    return 'the server refused the login (check the user, --ssh-key / ORDER_BATCH_SSH_KEY or ORDER_BATCH_SSH_PASSWORD).';
  }
  if (err.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(text)) return 'the connection was refused (is the SFTP server running on that port?).';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || /ENOTFOUND|EAI_AGAIN/.test(text)) return 'the host name does not resolve (check the address).';
  if (err.code === 'ETIMEDOUT' || /timed out/i.test(text)) return 'the server did not answer in time.';
  if (err.code === 'EACCES' || err.code === 3 || /permission denied/i.test(text)) return 'permission denied on the server.';
  if (err.code === 'ENOENT' || err.code === 2 || /no such file/i.test(text)) return 'no such file or folder on the server.';
  return `the SFTP transfer failed (${text.replace(/^[a-zA-Z]+: /, '')}).`;
}

export async function openSftpStore(location: SftpLocation, settings: RemoteSettings): Promise<RemoteStore> {
  const server = serverText(location);
  const entries = parseKnownHosts(readKnownHosts(settings.knownHostsPath));
  const privateKey = privateKeyOf(settings);
  let refusal: string | null = null;
  const client = new SftpClient('order-batch');
  try {
    await client.connect({
      host: location.host,
      port: location.port,
      username: location.user,
      ...(privateKey ? { privateKey, ...(settings.sshPassword ? { passphrase: settings.sshPassword } : {}) } : {}),
      ...(!privateKey && settings.sshPassword ? { password: settings.sshPassword } : {}),
      readyTimeout: 20_000,
      algorithms: { serverHostKey: preferredHostKeyAlgorithms(entries, location.host, location.port) as never },
      // One attempt: a refused host key or login is not made right by asking again.
      retries: 0,
      hostVerifier: (blob: Buffer) => {
        const verdict = checkHostKey(entries, location.host, location.port, blob);
        if (verdict.kind === 'known') return true;
        refusal = hostKeyMessage(location, verdict, blob, settings.knownHostsPath);
        return false;
      },
    });
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new RemoteError(server, refusal ?? describeSftpError(error), { cause: error });
  }
  const fail = (path: string, error: unknown): never => {
    throw new RemoteError(`${server}${path}`, describeSftpError(error), { cause: error });
  };
  return {
    shown: server,
    async list(folder) {
      const files = await client.list(folder).catch((e: unknown) => fail(folder, e));
      return files
        .filter((f) => f.type === '-')
        .map((f): RemoteEntry => ({ name: f.name, path: joinPath(folder, f.name), size: f.size, mtimeMs: f.modifyTime }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async stat(path) {
      try {
        const s = await client.stat(path);
        return { name: baseNameOf(path), path, size: s.size, mtimeMs: s.modifyTime };
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT' || (error as { code?: unknown }).code === 2) return null;
        return fail(path, error);
      }
    },
    async download(path, localFile) {
      await client.fastGet(path, localFile, TRANSFER).catch((e: unknown) => fail(path, e));
      return statSync(localFile).size;
    },
    async upload(localFile, path) {
      // Under a temporary name first: a reader of the folder never sees half a file by its real name.
      const temp = joinPath(path.slice(0, path.lastIndexOf('/') + 1) || '/', `.${baseNameOf(path)}.${randomBytes(6).toString('hex')}.part`);
      await client.fastPut(localFile, temp, TRANSFER).catch((e: unknown) => fail(path, e));
      // posix-rename (OpenSSH) replaces an existing file in one step; plain SFTP rename refuses to.
      await client.posixRename(temp, path).catch(async () => {
        await client.delete(path, true);
        await client.rename(temp, path).catch((e: unknown) => fail(path, e));
      });
    },
    async move(from, to) {
      await client.rename(from, to).catch((e: unknown) => fail(from, e));
    },
    async remove(path) {
      await client.delete(path).catch((e: unknown) => fail(path, e));
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}
