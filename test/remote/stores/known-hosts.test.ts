import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkHostKey, fingerprintOf, keyTypeOf, knownHostsLine, matchesHost, parseKnownHosts, preferredHostKeyAlgorithms } from '../../../src/remote/stores/known-hosts.js';

/** A key blob as SSH frames it: the type name, then the key bytes. */
function blobOf(type: string, fill: number): Buffer {
  const name = Buffer.from(type);
  const key = Buffer.alloc(32, fill);
  const length = (n: number) => Buffer.from([0, 0, 0, n]);
  return Buffer.concat([length(name.length), name, length(key.length), key]);
}

const KEY = blobOf('ssh-ed25519', 1);
const OTHER = blobOf('ssh-ed25519', 2);

describe('known_hosts', () => {
  it('knows a key listed under [host]:port for a server on another port than 22', () => {
    const entries = parseKnownHosts(`# comment\n\n[sftp.example.com]:2222 ssh-ed25519 ${KEY.toString('base64')}\n`);
    expect(checkHostKey(entries, 'sftp.example.com', 2222, KEY)).toEqual({ kind: 'known' });
    expect(checkHostKey(entries, 'sftp.example.com', 22, KEY)).toEqual({ kind: 'unknown' });
  });

  it('knows a key listed under a hashed name', () => {
    const salt = Buffer.alloc(20, 7);
    const hash = createHmac('sha1', salt).update('drop.example.com').digest('base64');
    const entries = parseKnownHosts(`|1|${salt.toString('base64')}|${hash} ssh-ed25519 ${KEY.toString('base64')}`);
    expect(checkHostKey(entries, 'drop.example.com', 22, KEY)).toEqual({ kind: 'known' });
    expect(checkHostKey(entries, 'other.example.com', 22, KEY)).toEqual({ kind: 'unknown' });
  });

  it('says a key of a known type that differs from the listed one has changed', () => {
    const entries = parseKnownHosts(`drop.example.com,10.0.0.5 ssh-ed25519 ${OTHER.toString('base64')}`);
    expect(checkHostKey(entries, '10.0.0.5', 22, KEY)).toEqual({ kind: 'changed', knownTypes: ['ssh-ed25519'] });
  });

  it('treats a key of a type the file lists none of for the host as unknown, as ssh does', () => {
    const entries = parseKnownHosts(`drop.example.com ecdsa-sha2-nistp256 AAAA`);
    expect(checkHostKey(entries, 'drop.example.com', 22, KEY).kind).toBe('unknown');
  });

  it('refuses a key marked @revoked even where another line lists it', () => {
    const line = `drop.example.com ssh-ed25519 ${KEY.toString('base64')}`;
    expect(checkHostKey(parseKnownHosts(`@revoked ${line}\n${line}`), 'drop.example.com', 22, KEY).kind).toBe('revoked');
  });

  it('reads wildcards and negations in host patterns', () => {
    expect(matchesHost('*.example.com,!bad.example.com', 'drop.example.com')).toBe(true);
    expect(matchesHost('*.example.com,!bad.example.com', 'bad.example.com')).toBe(false);
    expect(matchesHost('drop?.example.com', 'drop1.example.com')).toBe(true);
  });

  it('gives the fingerprint as ssh-keygen -lf prints it and the line to add', () => {
    expect(fingerprintOf(KEY)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(keyTypeOf(KEY)).toBe('ssh-ed25519');
    expect(knownHostsLine('127.0.0.1', 2222, KEY)).toBe(`[127.0.0.1]:2222 ssh-ed25519 ${KEY.toString('base64')}`);
    expect(knownHostsLine('drop.example.com', 22, KEY)).toBe(`drop.example.com ssh-ed25519 ${KEY.toString('base64')}`);
  });

  it('asks the server first for the kind of key known_hosts holds for it', () => {
    const entries = parseKnownHosts(`drop.example.com ssh-rsa AAAA\nother.example.com ssh-ed25519 AAAA`);
    expect(preferredHostKeyAlgorithms(entries, 'drop.example.com', 22).slice(0, 4)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519']);
    expect(preferredHostKeyAlgorithms(entries, 'unknown.example.com', 22)[0]).toBe('ssh-ed25519');
  });
});
