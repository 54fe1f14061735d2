import { describe, expect, it } from 'vitest';
import { isRemote, parseRemoteLocation, redactLocation } from '../../src/remote/location.js';
import { judgeFile } from '../../src/remote/publish.js';
import { retryDelayMs, versionOf, whyWaiting } from '../../src/remote/settle.js';

describe('remote locations', () => {
  it('reads sftp, s3 and https addresses, folders by their trailing slash or missing extension', () => {
    expect(parseRemoteLocation('sftp://ops@drop.example.com:2222/in/')).toMatchObject({ kind: 'sftp', user: 'ops', host: 'drop.example.com', port: 2222, path: '/in/', isFolder: true });
    expect(parseRemoteLocation('sftp://ops@drop.example.com/in/orders.csv')).toMatchObject({ port: 22, path: '/in/orders.csv', isFolder: false });
    expect(parseRemoteLocation('s3://bucket/inbox')).toMatchObject({ kind: 's3', bucket: 'bucket', key: 'inbox', isFolder: true });
    expect(parseRemoteLocation('https://example.com/x.csv?sig=1')).toMatchObject({ kind: 'http', shown: 'https://example.com/x.csv?…' });
    expect(isRemote('/var/inbox')).toBe(false);
    expect(isRemote('C:\\inbox')).toBe(false);
  });

  it('refuses a password in the address and never repeats it', () => {
    expect(() => parseRemoteLocation('sftp://ops:hunter2@drop.example.com/in/')).toThrow(/ORDER_BATCH_SSH_PASSWORD/);
    try {
      parseRemoteLocation('sftp://ops:hunter2@drop.example.com/in/');
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('shows an address without its password or query string', () => {
    expect(redactLocation('https://u:p@example.com/a.csv?X-Amz-Signature=abc#f')).toBe('https://u@example.com/a.csv?…');
  });

  it('takes plain http only from this machine', () => {
    expect(parseRemoteLocation('http://127.0.0.1:8080/a.csv').kind).toBe('http');
    expect(() => parseRemoteLocation('http://example.com/a.csv')).toThrow(/only from this machine/);
  });
});

describe('reading a remote folder safely', () => {
  const entry = { name: 'a.csv', path: '/in/a.csv', size: 100, mtimeMs: Date.parse('2026-11-20T10:00:00Z') };
  const now = Date.parse('2026-11-20T10:05:00Z');

  it('waits for a file modified within --settle or still changing size', () => {
    expect(whyWaiting(entry, entry, now, 60)).toBeNull();
    expect(whyWaiting(entry, entry, now, 600)).toMatch(/modified 300 s ago, less than --settle 600 s/);
    expect(whyWaiting(entry, { ...entry, size: 120 }, now, 0)).toMatch(/still changing \(100 bytes, then 120 bytes/);
    expect(whyWaiting(entry, null, now, 0)).toMatch(/disappeared/);
  });

  it('names a version by its ETag when the store has one, else by size and time', () => {
    expect(versionOf({ ...entry, etag: 'abc' })).toBe('etag:abc');
    expect(versionOf(entry)).toBe('size:100;mtime:2026-11-20T10:00:00.000Z');
  });

  it('backs off between download attempts, up to a bound', () => {
    expect([2, 3, 4, 5, 10].map((n) => retryDelayMs(n))).toEqual([500, 1000, 2000, 4000, 8000]);
  });

  it('takes a sheet again next run only while some order may still go through', () => {
    expect(judgeFile(['accepted', 'already_submitted'], undefined)).toEqual({ kept: null, claim: 'done' });
    expect(judgeFile(['accepted', 'invalid'], undefined)).toMatchObject({ kept: expect.stringMatching(/need fixing/), claim: 'done' });
    expect(judgeFile(['failed'], undefined)).toMatchObject({ kept: expect.stringMatching(/next run tries/), claim: 'retry' });
    expect(judgeFile([], 'damaged')).toMatchObject({ kept: expect.stringMatching(/could not be read/), claim: 'done' });
  });
});
