/** Retention: uploads and results older than the retention period leave the ledger and every work folder; idle sessions go too. */
import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { tidyUp } from '../../src/web/housekeeping.js';
import { createSharedFiles } from '../../src/web/shared-files.js';
import { openWorkDir } from '../../src/web/work-dir.js';
import { makeTempFolder } from '../support/temp-dir.js';

const DAY = 86_400_000;

describe('housekeeping', () => {
  let dir: string;
  let ledger: Ledger;
  let now = new Date('2031-01-01T00:00:00Z');
  beforeEach(async () => {
    dir = makeTempFolder('housekeeping');
    ledger = await openLedger(join(dir, 'ledger.db'), { now: () => new Date(now) });
  });
  afterEach(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes what is past its retention from the ledger and the work folders, and keeps the rest', async () => {
    const here = openWorkDir(join(dir, 'web-a'));
    const there = openWorkDir(join(dir, 'web-b'));
    const files = createSharedFiles(ledger.files, here, silentLogger);
    const old = 'OOOOOOOOOOOOOOOO';
    writeFileSync(join(here.dirOf('uploads', old), 'old.csv'), 'a'.repeat(100));
    await files.publish('uploads', old);
    // Another instance fetched it too.
    expect(await createSharedFiles(ledger.files, there, silentLogger).fetch('uploads', old)).toBe(true);
    now = new Date(now.getTime() + 80 * DAY);
    const fresh = 'FFFFFFFFFFFFFFFF';
    writeFileSync(join(here.dirOf('jobs', fresh), 'result.xlsx'), 'b'.repeat(10));
    await files.publish('jobs', fresh);
    await ledger.sessions.save('s-1', { userName: null, data: {}, address: null });

    now = new Date(now.getTime() + 11 * DAY);
    await tidyUp({ files, ledger, retentionDays: 90, sessionIdleMs: 8 * 3_600_000, now, logger: silentLogger });
    expect(await ledger.files.usage()).toMatchObject({ files: 1, bytes: 10 });
    expect(existsSync(join(here.root, 'uploads', old))).toBe(false);
    expect(existsSync(join(here.root, 'jobs', fresh, 'result.xlsx'))).toBe(true);
    expect(await ledger.sessions.load('s-1', 100 * DAY)).toBeNull();
    // The other instance's copy goes with its own housekeeping: no longer in the ledger, and a day old there.
    const copy = join(there.root, 'uploads', old);
    expect(existsSync(copy)).toBe(true);
    await createSharedFiles(ledger.files, there, silentLogger).removeOlderThan(now);
    expect(existsSync(copy)).toBe(true);
    utimesSync(copy, new Date(Date.now() - 2 * DAY), new Date(Date.now() - 2 * DAY));
    await createSharedFiles(ledger.files, there, silentLogger).removeOlderThan(now);
    expect(existsSync(copy)).toBe(false);
  });
});
