/**
 * The server's host key checked against an OpenSSH known_hosts file, as `ssh` does: plain host
 * patterns (`host`, `[host]:port`, `*` and `?` wildcards, `!negation`), hashed names (`|1|salt|hash`,
 * HMAC-SHA1 of the name keyed with the salt) and `@revoked` markers. No well-kept npm library reads
 * this format; the file format is read here and the hashing is Node's crypto.
 */
import { createHash, createHmac } from 'node:crypto';

export interface KnownHostEntry {
  marker: '@revoked' | '@cert-authority' | null;
  /** The comma-separated patterns, or one hashed name. */
  hosts: string;
  keyType: string;
  /** The key blob, base64 as the file holds it. */
  key: string;
}

/** Reads the entries of a known_hosts text; comments, blank and malformed lines are passed over, as ssh does. */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const marker = fields[0] === '@revoked' || fields[0] === '@cert-authority' ? (fields.shift() as KnownHostEntry['marker']) : null;
    if (fields.length < 3) continue;
    entries.push({ marker, hosts: fields[0]!, keyType: fields[1]!, key: fields[2]! });
  }
  return entries;
}

/** How a host is named in known_hosts: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function wildcardToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

function isHashedMatch(hashed: string, name: string): boolean {
  const parts = hashed.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2]!, 'base64');
  return createHmac('sha1', salt).update(name).digest('base64') === parts[3];
}

/** Whether an entry's host field names this host (a negated pattern that matches rules the entry out). */
export function matchesHost(hosts: string, name: string): boolean {
  if (hosts.startsWith('|1|')) return isHashedMatch(hosts, name);
  let isMatch = false;
  for (const pattern of hosts.split(',')) {
    const isNegated = pattern.startsWith('!');
    if (wildcardToRegExp(isNegated ? pattern.slice(1) : pattern).test(name)) {
      if (isNegated) return false;
      isMatch = true;
    }
  }
  return isMatch;
}

/** The key type a blob names (its first SSH string, e.g. ssh-ed25519). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const length = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + length).toString('latin1');
}

/** The fingerprint `ssh-keygen -lf` prints: SHA256: and the unpadded base64 of the blob's SHA-256. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export type HostKeyVerdict = { kind: 'known' } | { kind: 'unknown' } | { kind: 'changed'; knownTypes: string[] } | { kind: 'revoked' };

/**
 * The verdict on the key a server offered. A name with entries for this key type whose key differs is
 * `changed` (as ssh says "REMOTE HOST IDENTIFICATION HAS CHANGED"); a name with entries only for other
 * key types is `unknown` for this one, as ssh treats it.
 */
export function checkHostKey(entries: readonly KnownHostEntry[], host: string, port: number, blob: Buffer): HostKeyVerdict {
  const name = knownHostsName(host, port);
  const offered = blob.toString('base64');
  const type = keyTypeOf(blob);
  const forHost = entries.filter((e) => e.marker !== '@cert-authority' && matchesHost(e.hosts, name));
  if (forHost.some((e) => e.marker === '@revoked' && e.key === offered)) return { kind: 'revoked' };
  const plain = forHost.filter((e) => e.marker === null);
  if (plain.some((e) => e.key === offered)) return { kind: 'known' };
  const sameType = plain.filter((e) => e.keyType === type);
  if (sameType.length > 0) return { kind: 'changed', knownTypes: [type] };
  return { kind: 'unknown' };
}

/** The line to add to known_hosts for this key, once its fingerprint has been checked with the server's owner. */
export function knownHostsLine(host: string, port: number, blob: Buffer): string {
  return `${knownHostsName(host, port)} ${keyTypeOf(blob)} ${blob.toString('base64')}`;
}

/** Host key algorithms ssh2 can check, in its own order of preference. */
const HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];

/**
 * The host key algorithms to offer, those of the keys known_hosts lists for the host first: a server
 * with an RSA and an Ed25519 key, known by its RSA key only, is then asked for that one (as ssh does)
 * rather than refused as unknown.
 */
export function preferredHostKeyAlgorithms(entries: readonly KnownHostEntry[], host: string, port: number): string[] {
  const name = knownHostsName(host, port);
  const known = new Set(entries.filter((e) => e.marker === null && matchesHost(e.hosts, name)).map((e) => e.keyType));
  const isKnown = (algorithm: string) => known.has(algorithm) || (known.has('ssh-rsa') && algorithm.startsWith('rsa-sha2-'));
  return [...HOST_KEY_ALGORITHMS.filter(isKnown), ...HOST_KEY_ALGORITHMS.filter((a) => !isKnown(a))];
}
