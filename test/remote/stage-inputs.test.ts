/** Reading a remote folder with an in-memory store: downloads that break off, files that change while read. */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stageInputs } from '../../src/remote/stage-inputs.js';
import type { RemoteEntry, RemoteStore } from '../../src/remote/stores/store.js';
import { useTempDir } from '../support/temp-dir.js';

const path = useTempDir('stage-inputs');
const OLD = Date.parse('2026-11-20T10:00:00Z');
const NOW = Date.parse('2026-11-20T12:00:00Z');

/** A store of files in memory; `onDownload` may cut a download short or change the file. */
function memoryStore(files: Map<string, { content: string; mtimeMs: number }>, onDownload: (path: string, attempt: number) => number | null = () => null): RemoteStore {
  const attempts = new Map<string, number>();
  const entryOf = (p: string): RemoteEntry | null => {
    const f = files.get(p);
    return f ? { name: p.slice(p.lastIndexOf('/') + 1), path: p, size: Buffer.byteLength(f.content), mtimeMs: f.mtimeMs } : null;
  };
  return {
    shown: 'sftp://test@host',
    list: async (folder) => [...files.keys()].filter((p) => p.startsWith(folder)).sort().map((p) => entryOf(p)!),
    stat: async (p) => entryOf(p),
    download: async (p, local) => {
      const attempt = (attempts.get(p) ?? 0) + 1;
      attempts.set(p, attempt);
      const content = files.get(p)!.content;
      const cut = onDownload(p, attempt);
      const written = cut === null ? content : content.slice(0, cut);
      writeFileSync(local, written);
      return Buffer.byteLength(written);
    },
    upload: async () => undefined,
    move: async () => undefined,
    remove: async () => undefined,
    close: async () => undefined,
  };
}

const deps = (store: RemoteStore, workDir: string) => ({ openStore: async () => store, workDir, settleSeconds: 60, now: () => NOW, sleep: async () => undefined });

describe('reading a remote folder', () => {
  it('retries a download that breaks off and keeps only the whole file', async () => {
    const files = new Map([['/in/a.csv', { content: 'customerOrderId\nA-1\nA-2\n', mtimeMs: OLD }]]);
    const store = memoryStore(files, (_p, attempt) => (attempt < 3 ? 5 : null));
    const staged = await stageInputs(['sftp://test@host/in/'], deps(store, path('retry')));
    expect(staged.failures).toEqual([]);
    expect(readFileSync(staged.files[0]!, 'utf8')).toBe('customerOrderId\nA-1\nA-2\n');
    expect(readdirSync(path('retry')).flatMap((d) => readdirSync(`${path('retry')}/${d}`))).toEqual(['a.csv']);
  });

  it('reports a file that never comes whole, leaving no part of it behind', async () => {
    const files = new Map([['/in/b.csv', { content: 'customerOrderId\nB-1\n', mtimeMs: OLD }]]);
    const staged = await stageInputs(['sftp://test@host/in/'], deps(memoryStore(files, () => 3), path('broken')));
    expect(staged.files).toEqual([]);
    expect(staged.failures).toEqual([{ location: 'sftp://test@host/in/b.csv', reason: expect.stringMatching(/could not be read whole after 4 attempts \(the download broke off \(3 of 20 bytes\)\)/) }]);
    expect(readdirSync(path('broken'))).toEqual([]);
  });

  it('drops a file rewritten while it was read: it comes back as a new version', async () => {
    const files = new Map([['/in/c.csv', { content: 'customerOrderId\nC-1\n', mtimeMs: OLD }]]);
    const store = memoryStore(files, (p) => {
      files.set(p, { content: 'customerOrderId\nC-1\nC-2\n', mtimeMs: OLD + 1000 });
      return null;
    });
    const staged = await stageInputs(['sftp://test@host/in/'], deps(store, path('changed')));
    expect(staged.files).toEqual([]);
    expect(staged.waiting).toEqual([{ location: 'sftp://test@host/in/c.csv', reason: 'it changed while it was being read' }]);
  });

  it('leaves out what is not an order sheet and what has not settled', async () => {
    const files = new Map([
      ['/in/notes.md', { content: 'x', mtimeMs: OLD }],
      ['/in/.upload.part', { content: 'x', mtimeMs: OLD }],
      ['/in/d.import-result.xlsx', { content: 'x', mtimeMs: OLD }],
      ['/in/fresh.csv', { content: 'customerOrderId\n', mtimeMs: NOW - 5000 }],
      ['/in/old.csv', { content: 'customerOrderId\n', mtimeMs: OLD }],
    ]);
    const staged = await stageInputs(['sftp://test@host/in/'], deps(memoryStore(files), path('mixed')));
    expect(staged.staged.map((s) => s.location)).toEqual(['sftp://test@host/in/old.csv']);
    expect(staged.waiting.map((w) => w.location)).toEqual(['sftp://test@host/in/fresh.csv']);
  });

  it('watches a folder whose files are stamped ahead of the clock once for the settle window, then reads the ones that held still', async () => {
    // An SFTP server whose clock runs an hour ahead: both files were written moments ago by its clock.
    const files = new Map([
      ['/in/still.csv', { content: 'customerOrderId\nS-1\n', mtimeMs: NOW + 3_600_000 }],
      ['/in/growing.csv', { content: 'customerOrderId\n', mtimeMs: NOW + 3_600_000 }],
    ]);
    let now = NOW;
    const sleeps: number[] = [];
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      now += ms;
      // Meanwhile the upload of one of them goes on.
      files.set('/in/growing.csv', { content: 'customerOrderId\nG-1\n', mtimeMs: NOW + 3_600_000 + 1_000 });
    };
    const staged = await stageInputs(['sftp://test@host/in/'], { ...deps(memoryStore(files), path('ahead')), now: () => now, sleep });
    expect(sleeps).toEqual([60_000]);
    expect(staged.staged.map((f) => f.location)).toEqual(['sftp://test@host/in/still.csv']);
    expect(staged.waiting).toEqual([{ location: 'sftp://test@host/in/growing.csv', reason: expect.stringMatching(/still changing/) }]);
    expect(staged.notes).toEqual([expect.stringMatching(/^sftp:\/\/test@host\/in\/: 2 files are stamped up to 3600 s ahead of this host's clock: the server's clock runs ahead; they are read once they have kept their size and time for --settle 60 s/)]);
  });

  it('counts the age on the S3 server\'s clock where it tells it, and waits for no one when no file is ahead', async () => {
    // The server's clock runs an hour behind: a file it stamped 10 s ago is 10 s old, not an hour and 10 s.
    const files = new Map([['/in/fresh.csv', { content: 'customerOrderId\nF-1\n', mtimeMs: NOW - 3_600_000 - 10_000 }]]);
    const store = { ...memoryStore(files), serverClockOffsetMs: () => -3_600_000 };
    const sleeps: number[] = [];
    const staged = await stageInputs(['sftp://test@host/in/'], { ...deps(store, path('behind')), sleep: async (ms: number) => void sleeps.push(ms) });
    expect(sleeps).toEqual([]);
    expect(staged.files).toEqual([]);
    expect(staged.waiting).toEqual([{ location: 'sftp://test@host/in/fresh.csv', reason: expect.stringMatching(/modified 10 s ago, less than --settle 60 s/) }]);
  });
});
