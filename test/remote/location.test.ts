import { describe, expect, it } from 'vitest';
import { isRemote, parseRemoteLocation, redactLocation } from '../../src/remote/location.js';
import { judgeFile } from '../../src/remote/publish.js';
import { isAheadOfClock, retryDelayMs, versionOf, whyWaiting } from '../../src/remote/settle.js';

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
    expect(whyWaiting(entry, entry, { nowMs: now }, 60)).toBeNull();
    expect(whyWaiting(entry, entry, { nowMs: now }, 600)).toMatch(/modified 300 s ago, less than --settle 600 s/);
    expect(whyWaiting(entry, { ...entry, size: 120 }, { nowMs: now }, 0)).toMatch(/still changing \(100 bytes, then 120 bytes/);
    expect(whyWaiting(entry, null, { nowMs: now }, 0)).toMatch(/disappeared/);
  });

  it("counts a file's age on the server's clock where it tells it: a server an hour behind does not make a fresh upload look old", () => {
    // Written 30 s ago by the server's clock, which runs an hour behind this host's.
    const fresh = { ...entry, mtimeMs: now - 3_600_000 - 30_000 };
    expect(whyWaiting(fresh, fresh, { nowMs: now, serverOffsetMs: -3_600_000 }, 60)).toMatch(/modified 30 s ago, less than --settle 60 s/);
    expect(whyWaiting(fresh, fresh, { nowMs: now, serverOffsetMs: -3_600_000 }, 20)).toBeNull();
  });

  it('holds a file stamped ahead of the clock until it has kept its size and time for the settle window, then reads it', () => {
    // An SFTP server whose clock runs ten minutes ahead: its file, written a moment ago, looks ten minutes in the future.
    const ahead = { ...entry, mtimeMs: now + 600_000 };
    expect(isAheadOfClock(ahead, { nowMs: now })).toBe(true);
    expect(whyWaiting(ahead, ahead, { nowMs: now }, 60)).toMatch(/its modification time is 600 s ahead of this host's clock \(the server's clock runs ahead\): it is read once it has kept its size and time for --settle 60 s/);
    expect(whyWaiting(ahead, ahead, { nowMs: now }, 60, 59_000)).not.toBeNull();
    expect(whyWaiting(ahead, ahead, { nowMs: now }, 60, 60_000)).toBeNull();
    // Watched, but it changed meanwhile: still being written.
    expect(whyWaiting(ahead, { ...ahead, size: 180 }, { nowMs: now }, 60, 60_000)).toMatch(/still changing/);
  });

  it('takes a time a second ahead for rounding, not for a clock that runs ahead', () => {
    const rounded = { ...entry, mtimeMs: now + 1_000 };
    expect(isAheadOfClock(rounded, { nowMs: now })).toBe(false);
    expect(whyWaiting(rounded, rounded, { nowMs: now }, 60)).toMatch(/modified 0 s ago, less than --settle 60 s/);
    expect(whyWaiting(rounded, rounded, { nowMs: now }, 0)).toBeNull();
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
