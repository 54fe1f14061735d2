import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { copyLedger } from '../../src/ledger/copy/copy-ledger.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger, OrderRecord } from '../../src/ledger/types.js';
import { MIGRATIONS, migrateSchema } from '../../src/ledger/sqlite/schema.js';
import { openDatabase } from '../../src/sqlite/open-database.js';
import { runCli } from '../e2e/run-cli.js';
import { describePostgres } from '../support/postgres/database.js';
import { buildClock, buildIntent } from './builders.js';
import { useCopyEnds } from './copy-ends.js';

/** Everything a ledger holds, as the Ledger interface reads it. */
async function contentsOf(ledger: Ledger, settings: string[], watermarks: string[]) {
  const orders: OrderRecord[] = [];
  for await (const record of ledger.iterateRecords()) orders.push(record);
  return {
    orders,
    users: await ledger.users.list(),
    tokens: await ledger.tokens.list(),
    audit: (await ledger.audit.list({ limit: 1000 })).map(({ seq: _seq, ...entry }) => entry),
    runs: await ledger.listRuns(1000),
    mappings: await ledger.mappings.list(),
    occurrences: await ledger.schedules.list({ limit: 1000 }),
    settings: await Promise.all(settings.map((name) => ledger.getSetting(name))),
    watermarks: await Promise.all(watermarks.map((name) => ledger.getWatermark(name))),
  };
}

const SHEET_DONE = { location: 'sftp://drop/in/a.csv', version: '10@2031-05-01T00:00:00Z' };
const SHEET_RETRY = { location: 's3://bucket/in/b.csv', version: 'etag:b' };
const RAN = { schedule: 'nightly', scheduledAt: '2031-05-01T02:00:00.000Z' };

/** Whether another host could claim each remote sheet in the ledger at `location`. */
async function claimableIn(location: string): Promise<boolean[]> {
  const ledger = await openLedger(location);
  try {
    const claim = { holder: 'host-b:2:y', host: 'host-b', leaseMs: 60_000 };
    return [await ledger.remoteFiles.claim({ ...SHEET_DONE, ...claim }), await ledger.remoteFiles.claim({ ...SHEET_RETRY, ...claim })];
  } finally {
    await ledger.close();
  }
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describePostgres('ledger copy between SQLite and PostgreSQL', () => {
  const ends = useCopyEnds();
  beforeEach(async () => {
    // A ledger with an order in every state, a finished run, one killed before finishing, a setting and a watermark.
    const clock = buildClock();
    const ledger = await openLedger(ends.sqlitePath, { now: clock.now });
    const first = await ledger.startRun({ command: 'import', files: [{ file: 'a.csv', sha256: 'aa', rows: 9, orders: 6 }] });
    await first.prepareSends(['A-1', 'A-2', 'R-1', 'U-1', 'F-1'].map((id) => buildIntent(id)));
    await first.recordIntents([buildIntent('P-1')]);
    clock.advance(1000);
    await first.markAcceptedMany([{ customerOrderId: 'A-1', info: { httpStatus: 201, requestId: 'r-1' } }, { customerOrderId: 'A-2', info: { httpStatus: 201 } }]);
    await first.markRejected('R-1', { httpStatus: 400, message: 'unknown product' });
    await first.markUnknown('U-1', { message: 'socket hang up' });
    await first.markFailed('F-1', { httpStatus: 503 });
    await first.finish({ summary: { accepted: 2, rejected: 1 }, resultFiles: ['a.result.xlsx'] });
    const killed = await ledger.startRun({ command: 'import', files: ['b.csv'] });
    await killed.prepareSends([buildIntent('S-1')]);
    await ledger.setSetting('endpoint', 'https://api.example.com');
    await ledger.setWatermark('reconcile.updated', '2031-05-01T00:00:00.000Z');
    // The web app's accounts and its audit trail.
    await ledger.users.add({ name: 'maria', role: 'admin', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', email: 'maria@example.com' });
    await ledger.users.add({ name: 'li', role: 'viewer', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$b3RoZXI' });
    await ledger.users.update('li', { isDisabled: true });
    await ledger.tokens.add({ label: 'erp', userName: 'maria', tokenHash: 'ab'.repeat(32), createdBy: 'maria', expiresAt: '2031-06-01T00:00:00.000Z' });
    await ledger.audit.record({ actor: 'maria', via: 'web', address: '10.0.0.7', action: 'submit', fileName: 'a.csv', fileSha256: 'aa', counts: { valid: 6 }, ref: 'job-1' });
    clock.advance(1000);
    await ledger.audit.record({ actor: 'cron', via: 'cli', address: 'batch', action: 'reconcile', counts: { shipped: 2 } });
    // The column mappings saved for the team.
    await ledger.mappings.save({ name: 'acme', profile: '{"name":"acme"}', savedBy: 'maria' });
    // Remote sheets processed (one done, one to take again) and a schedule's occurrences (one ran, one missed).
    const claim = { holder: 'host-a:1:x', host: 'host-a', leaseMs: 60_000 };
    for (const [file, end] of [[SHEET_DONE, 'done'], [SHEET_RETRY, 'retry']] as const) {
      await ledger.remoteFiles.claim({ ...file, ...claim });
      await ledger.remoteFiles.finish(file, claim.holder, end, end === 'done' ? '6 orders settled' : '1 order failed');
    }
    await ledger.schedules.claim({ ...RAN, kind: 'scheduled', holder: 'h', host: 'host-a', leaseMs: 60_000 });
    await ledger.schedules.finish(RAN, 'h', { outcome: 'ok', exitCode: 0, summary: { accepted: 2 }, runId: null, message: null });
    await ledger.schedules.recordMissed({ schedule: 'nightly', scheduledAt: '2031-04-30T02:00:00.000Z' }, 'every instance was down');
    await ledger.close();
  });
  const names = { settings: ['endpoint'], watermarks: ['reconcile.updated'] };
  const contents = async (location: string) => {
    const ledger = await openLedger(location);
    try {
      return await contentsOf(ledger, names.settings, names.watermarks);
    } finally {
      await ledger.close();
    }
  };

  it('copies every order, run, setting and watermark into PostgreSQL and back, leaving the source as it was', async () => {
    const expected = await contents(ends.sqlitePath);
    expect(expected.orders.map((o) => o.state).sort()).toEqual(['accepted', 'accepted', 'failed', 'pending', 'rejected', 'sending', 'unknown']);
    const beforeCopy = sha256(ends.sqlitePath);

    const there = await copyLedger(ends.sqlitePath, ends.db.url);
    expect(there.orders).toEqual({ insert: 7, update: 0, unchanged: 0, kept: 0 });
    expect(there.runs).toEqual({ insert: 2, update: 0, unchanged: 0, kept: 0 });
    expect([there.settings.insert, there.watermarks.insert]).toEqual([1, 1]);
    expect([there.users.insert, there.tokens.insert, there.audit.insert, there.mappings.insert]).toEqual([2, 1, 2, 1]);
    expect(there.to).not.toContain('pg-test-s3cret');
    expect(sha256(ends.sqlitePath)).toBe(beforeCopy);
    expect(await contents(ends.db.url)).toEqual(expected);

    const back = join(ends.dir, 'back.db');
    await copyLedger(ends.db.url, back);
    expect(await contents(back)).toEqual(expected);
  });

  it('copies nothing the second time, and says so', async () => {
    await copyLedger(ends.sqlitePath, ends.db.url);
    const again = await copyLedger(ends.sqlitePath, ends.db.url);
    expect(again.orders).toEqual({ insert: 0, update: 0, unchanged: 7, kept: 0 });
    expect(again.runs).toEqual({ insert: 0, update: 0, unchanged: 2, kept: 0 });
    expect(again.settings).toEqual({ insert: 0, update: 0, unchanged: 1, kept: 0 });
    expect(again.watermarks).toEqual({ insert: 0, update: 0, unchanged: 1, kept: 0 });
    expect(again.mappings).toEqual({ insert: 0, update: 0, unchanged: 1, kept: 0 });
    expect(again.remoteFiles).toEqual({ insert: 0, update: 0, unchanged: 2, kept: 0 });
    expect(again.occurrences).toEqual({ insert: 0, update: 0, unchanged: 2, kept: 0 });
  });

  it('carries the remote sheets processed and the occurrences that ran, both ways: neither is done again after the move', async () => {
    const there = await copyLedger(ends.sqlitePath, ends.db.url);
    expect([there.remoteFiles, there.occurrences]).toEqual([{ insert: 2, update: 0, unchanged: 0, kept: 0 }, { insert: 2, update: 0, unchanged: 0, kept: 0 }]);
    const back = join(ends.dir, 'back.db');
    const returned = await copyLedger(ends.db.url, back);
    expect([returned.remoteFiles.insert, returned.occurrences.insert]).toEqual([2, 2]);
    // The sheet processed stays processed; the one released for retry is taken again.
    expect(await claimableIn(ends.db.url)).toEqual([false, true]);
    expect(await claimableIn(back)).toEqual([false, true]);
    const ran = await openLedger(ends.db.url);
    try {
      expect((await ran.schedules.list({ schedule: 'nightly' })).map((o) => [o.scheduledAt, o.state, o.outcome])).toEqual([
        [RAN.scheduledAt, 'done', 'ok'],
        ['2031-04-30T02:00:00.000Z', 'missed', 'missed'],
      ]);
      // The occurrence that ran is not claimed to run again.
      expect(await ran.schedules.claim({ ...RAN, kind: 'scheduled', holder: 'other', host: 'host-b', leaseMs: 60_000 })).toBeNull();
    } finally {
      await ran.close();
    }
  });

  it('lets a remote sheet processed on the source win over a claim the target released or lost', async () => {
    const target = await openLedger(ends.db.url);
    await target.remoteFiles.claim({ ...SHEET_DONE, holder: 'host-c:3:z', host: 'host-c', leaseMs: 60_000 });
    await target.remoteFiles.finish(SHEET_DONE, 'host-c:3:z', 'retry', 'the API was down');
    await target.close();
    const copied = await copyLedger(ends.sqlitePath, ends.db.url);
    expect(copied.remoteFiles).toEqual({ insert: 1, update: 1, unchanged: 0, kept: 0 });
    expect((await claimableIn(ends.db.url))[0]).toBe(false);
  });

  it('keeps the later save of a mapping both ledgers hold, and copies the others', async () => {
    const target = await openLedger(ends.db.url, { now: () => new Date('2040-01-01T00:00:00Z') });
    await target.mappings.save({ name: 'acme', profile: '{"name":"acme","later":true}', savedBy: 'li' });
    await target.close();
    const source = await openLedger(ends.sqlitePath, { now: () => new Date('2050-01-01T00:00:00Z') });
    await source.mappings.save({ name: 'globex', profile: '{"name":"globex"}', savedBy: 'maria' });
    await source.close();
    expect((await copyLedger(ends.sqlitePath, ends.db.url)).mappings).toEqual({ insert: 1, update: 0, unchanged: 0, kept: 1 });
    expect((await contents(ends.db.url)).mappings.map((m) => [m.name, m.savedBy])).toEqual([['acme', 'li'], ['globex', 'maria']]);
    // Saved again in the source after that: the source's is now the later save.
    const again = await openLedger(ends.sqlitePath, { now: () => new Date('2050-01-02T00:00:00Z') });
    await again.mappings.save({ name: 'acme', profile: '{"name":"acme","latest":true}', savedBy: 'maria' });
    await again.close();
    expect((await copyLedger(ends.sqlitePath, ends.db.url)).mappings).toMatchObject({ update: 1 });
    expect((await contents(ends.db.url)).mappings.find((m) => m.name === 'acme')?.profile).toBe('{"name":"acme","latest":true}');
  });

  it('copies the mappings of a ledger older than their table (held in one setting) as mappings', async () => {
    const old = join(ends.dir, 'old.db');
    const legacy = [{ profile: { name: 'acme', fields: {} }, savedBy: 'maria', savedAt: '2031-01-01T00:00:00.000Z' }];
    const file = openDatabase(old);
    migrateSchema(file, MIGRATIONS.slice(0, 4));
    file.prepare('INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?)').run('mappings', JSON.stringify(legacy), '2031-01-01T00:00:00.000Z');
    file.close();
    const copied = await copyLedger(old, ends.db.url);
    expect([copied.mappings.insert, copied.settings.insert]).toEqual([1, 0]);
    const ledger = await openLedger(ends.db.url);
    expect(await ledger.mappings.list()).toEqual([{ name: 'acme', profile: JSON.stringify(legacy[0]!.profile), savedBy: 'maria', savedAt: '2031-01-01T00:00:00.000Z' }]);
    expect(await ledger.getSetting('mappings')).toBeNull();
    await ledger.close();
  });

  it("lets the next run on PostgreSQL look up what the copied ledger's killed run may have sent", async () => {
    await copyLedger(ends.sqlitePath, ends.db.url);
    const ledger = await openLedger(ends.db.url);
    const run = await ledger.startRun({ command: 'import', files: [] });
    const actions = (await run.prepareSends(['S-1', 'A-1', 'U-1', 'P-1'].map((id) => buildIntent(id)))).map((r) => r.action);
    expect(actions).toEqual(['lookup', 'already_submitted', 'lookup', 'send']);
    await ledger.close();
  });

  it('refuses to copy onto another order of the same id, and writes nothing', async () => {
    const target = await openLedger(ends.db.url);
    const run = await target.startRun({ command: 'import', files: [] });
    await run.prepareSends([buildIntent('A-2', 99)]);
    await run.finish({ summary: {} });
    await target.close();
    const before = await contents(ends.db.url);
    await expect(copyLedger(ends.sqlitePath, ends.db.url)).rejects.toThrow(
      /^Cannot copy the ledger .*ledger\.db into postgresql:\/\/order_batch_test:\*\*\*@\/t_\w+\?host=\S+: order 'A-2' is another order there \(its contents differ from the source's\)\. Nothing was copied\.$/,
    );
    expect(await contents(ends.db.url)).toEqual(before);
  });

  it("moves accounts' e-mail addresses, and refuses an address the target gives another account, writing nothing", async () => {
    const target = await openLedger(ends.db.url);
    await target.users.add({ name: 'm.rossi', role: 'viewer', passwordHash: 'h', email: 'MARIA@example.com' });
    await target.close();
    const before = await contents(ends.db.url);
    await expect(copyLedger(ends.sqlitePath, ends.db.url)).rejects.toThrow(/the e-mail address maria@example\.com is the account m\.rossi's in the target and maria's in the source.*Nothing was copied\.$/);
    expect(await contents(ends.db.url)).toEqual(before);
    const back = join(ends.dir, 'back.db');
    await copyLedger(ends.sqlitePath, back);
    const copied = await openLedger(back);
    expect(await copied.users.findByEmail('maria@example.com')).toMatchObject({ name: 'maria' });
    await copied.close();
  });

  it('refuses a target that records orders for another API', async () => {
    const target = await openLedger(ends.db.url);
    await target.setSetting('endpoint', 'https://other.example.com');
    await target.close();
    await expect(copyLedger(ends.sqlitePath, ends.db.url)).rejects.toThrow(/its setting 'endpoint' is 'https:\/\/other\.example\.com' there and 'https:\/\/api\.example\.com' in the source/);
  });

  it('prints the counts from the command line, without the password', async () => {
    const result = await runCli(['ledger', 'copy', ends.sqlitePath, ends.db.url]);
    expect(result.stderr).not.toContain('pg-test-s3cret');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Copied the ledger .*ledger\.db into postgresql:\/\/order_batch_test:\*\*\*@\/t_\w+\?host=\S+ \(the source is unchanged\)\.\n  orders      7 copied\n  runs        2 copied\n  settings    1 copied\n  watermarks  1 copied\n  accounts    2 copied\n  api tokens  1 copied\n  audit       2 copied\n  mappings    1 copied\n  file claims 2 copied\n  occurrences 2 copied\n$/);
    const again = await runCli(['ledger', 'copy', ends.sqlitePath, ends.db.url, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ command: 'ledger copy', orders: { insert: 0, unchanged: 7 } });
    expect(again.stdout).not.toContain('pg-test-s3cret');
  });
});
