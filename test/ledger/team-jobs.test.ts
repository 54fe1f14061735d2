/**
 * Submissions as jobs with a lease, and the files they keep (src/ledger/team-types.ts), the same on
 * every backend: each `open()` is another instance of the web app on the same ledger.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Ledger, NewJob } from '../../src/ledger/index.js';
import { BACKENDS } from './backends.js';
import { buildIntent, collect } from './builders.js';
import { useLedgers } from './team-support.js';

const LEASE = 60_000;

function buildJob(id: string, uploadId = `u-${id}`): NewJob {
  return { id, uploadId, fileName: 'orders.csv', fileSha256: 'ab12', sheet: null, createdBy: 'maria', expected: 3 };
}

/** A pid no process of this machine has any more: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe.each(BACKENDS)('the $name ledger', (backend) => {
  const ledgers = useLedgers(backend);
  const readAll = async (ledger: Ledger, area: string, owner: string, name: string) => {
    const pieces = await ledger.files.read(area, owner, name);
    return pieces ? Buffer.concat(await collect(pieces)) : null;
  };

  describe('jobs', () => {
    it('queues jobs, and each instance asking at once takes a different one, oldest first', async () => {
      const [web1, web2, web3] = [await ledgers.open(), await ledgers.open(), await ledgers.open()];
      await web1.jobs.create(buildJob('job-1'));
      await web1.jobs.create(buildJob('job-2'));
      expect(await web2.jobs.findActive('u-job-1')).toMatchObject({ id: 'job-1', state: 'queued', createdBy: 'maria', starts: 0 });
      const taken = await Promise.all([web1.jobs.claim('web-1', LEASE), web2.jobs.claim('web-2', LEASE), web3.jobs.claim('web-3', LEASE)]);
      const ids = taken.map((job) => job?.id ?? null);
      expect(ids.filter((id) => id !== null).sort()).toEqual(['job-1', 'job-2']);
      expect(await web3.jobs.get('job-1')).toMatchObject({ state: 'running', starts: 1, startedAt: '2031-05-06T07:08:09.000Z' });
      expect((await web1.jobs.list()).map((job) => job.id)).toEqual(['job-2', 'job-1']);
    });

    it('keeps what kind of job each is and how it was asked for, and leases a reconciliation as it leases a submission', async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      await web1.jobs.create(buildJob('job-1'));
      await web1.jobs.create({ ...buildJob('rec-1', 'rec-1'), kind: 'reconcile', requestedVia: 'API token erp', fileName: 'reconciliation', expected: 0 });
      expect(await web2.jobs.get('job-1')).toMatchObject({ kind: 'submit', requestedVia: null });
      expect(await web2.jobs.claim('web-2', LEASE)).toMatchObject({ id: 'job-1', kind: 'submit' });
      expect(await web1.jobs.claim('web-1', LEASE)).toMatchObject({ id: 'rec-1', kind: 'reconcile', requestedVia: 'API token erp', state: 'running' });
      expect(await web1.jobs.finish('rec-1', 'web-1', 'done', { summary: { delivered: 2 } })).toBe(true);
      expect(await web2.jobs.get('rec-1')).toMatchObject({ kind: 'reconcile', state: 'done', outcome: { summary: { delivered: 2 } } });
    });

    it("keeps a job with its holder while the lease is renewed, and hands it on once the lease lapses", async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      await web1.jobs.create(buildJob('job-1'));
      await web1.jobs.claim('web-1', LEASE);
      const progress = { done: 1, total: 3, byStatus: { accepted: 1 } };
      expect(await web1.jobs.beat('job-1', 'web-1', LEASE, { progress, runId: 'run-1' })).toEqual({ isHeld: true, isCancelRequested: false });
      expect(await web2.jobs.claim('web-2', LEASE)).toBeNull();
      expect(await web2.jobs.get('job-1')).toMatchObject({ holder: 'web-1', runId: 'run-1', progress });

      await ledgers.store.expireJobLease('job-1');
      expect(await web2.jobs.claim('web-2', LEASE)).toMatchObject({ id: 'job-1', holder: 'web-2', starts: 2, progress });
      expect(await web1.jobs.beat('job-1', 'web-1', LEASE)).toEqual({ isHeld: false, isCancelRequested: false });
      expect(await web1.jobs.finish('job-1', 'web-1', 'done', { summary: { accepted: 3 } })).toBe(false);
      expect(await web2.jobs.finish('job-1', 'web-2', 'done', { summary: { accepted: 3 } })).toBe(true);
      expect(await web1.jobs.get('job-1')).toMatchObject({ state: 'done', holder: null, outcome: { summary: { accepted: 3 } } });
      expect(await web1.jobs.findActive('u-job-1')).toBeNull();
    });

    it('takes over at once a job whose holder died on this machine', async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      await web1.jobs.create(buildJob('job-1'));
      await web1.jobs.claim('web-1', LEASE);
      expect(await web2.jobs.claim('web-2', LEASE)).toBeNull();
      await ledgers.store.killJobHolder('job-1', deadPid());
      expect(await web2.jobs.claim('web-2', LEASE)).toMatchObject({ id: 'job-1', holder: 'web-2' });
    });

    it('cancels a queued job at once, and tells the holder of a running one at its next beat', async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      await web1.jobs.create(buildJob('job-1'));
      await web1.jobs.create(buildJob('job-2'));
      await web1.jobs.claim('web-1', LEASE);
      expect(await web2.jobs.requestCancel('job-2', 'li')).toMatchObject({ state: 'cancelled', cancelRequestedBy: 'li', finishedAt: '2031-05-06T07:08:09.000Z' });
      expect(await web2.jobs.requestCancel('job-1', 'li')).toMatchObject({ state: 'running', cancelRequestedBy: 'li' });
      expect(await web1.jobs.beat('job-1', 'web-1', LEASE)).toEqual({ isHeld: true, isCancelRequested: true });
      await web1.jobs.finish('job-1', 'web-1', 'cancelled', { summary: { accepted: 1, not_sent: 2 } });
      expect(await web2.jobs.requestCancel('job-1', 'ahmed')).toMatchObject({ state: 'cancelled', cancelRequestedBy: 'li' });
      expect(await web2.jobs.requestCancel('job-9', 'li')).toBeNull();
      expect(await web2.jobs.claim('web-2', LEASE)).toBeNull();
    });

    it('gives a job back to the queue when its instance stops, to be resumed by the next', async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      await web1.jobs.create(buildJob('job-1'));
      await web1.jobs.claim('web-1', LEASE);
      await web1.jobs.release('job-1', 'web-1');
      expect(await web2.jobs.get('job-1')).toMatchObject({ state: 'queued', holder: null });
      expect(await web2.jobs.claim('web-2', LEASE)).toMatchObject({ id: 'job-1', starts: 2 });
    });

    it.runIf(backend.hasConcurrentRuns)("waits for the job's last run to let go of its orders before another instance resumes it", async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      await web1.jobs.create(buildJob('job-1'));
      await web1.jobs.claim('web-1', LEASE);
      const run = await web1.startRun({ command: 'import', files: ['orders.csv'] });
      await run.prepareSends([buildIntent('A-1')]);
      await web1.jobs.beat('job-1', 'web-1', LEASE, { runId: run.runId });
      await ledgers.store.expireJobLease('job-1');
      expect(await web2.jobs.claim('web-2', LEASE)).toBeNull();
      await ledgers.store.expireLease!(run.runId);
      expect(await web2.jobs.claim('web-2', LEASE)).toMatchObject({ id: 'job-1', holder: 'web-2' });
    });
  });

  describe('files', () => {
    it('keeps a file in pieces and gives back the same bytes, to every instance', async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      const data = randomBytes(2.5 * 1024 * 1024);
      const info = await web1.files.put({ area: 'uploads', owner: 'up-1', name: 'orders.xlsx', data });
      expect(info).toMatchObject({ size: data.length, createdAt: '2031-05-06T07:08:09.000Z' });
      expect(await web2.files.info('uploads', 'up-1', 'orders.xlsx')).toEqual(info);
      expect((await readAll(web2, 'uploads', 'up-1', 'orders.xlsx'))!.equals(data)).toBe(true);
      const pieces = await collect((await web2.files.read('uploads', 'up-1', 'orders.xlsx'))!);
      expect(pieces.map((p) => p.length)).toEqual([1024 * 1024, 1024 * 1024, 512 * 1024]);
      expect(await web2.files.read('uploads', 'up-1', 'other.csv')).toBeNull();
    });

    it('replaces a file of the same name, lists an owner\'s files, and keeps an empty file', async () => {
      const ledger = await ledgers.open();
      await ledger.files.put({ area: 'jobs', owner: 'j-1', name: 'result.xlsx', data: Buffer.from('first version, longer') });
      await ledger.files.put({ area: 'jobs', owner: 'j-1', name: 'result.xlsx', data: Buffer.from('second') });
      await ledger.files.put({ area: 'jobs', owner: 'j-1', name: 'empty.csv', data: Buffer.alloc(0) });
      await ledger.files.put({ area: 'jobs', owner: 'j-2', name: 'result.xlsx', data: Buffer.from('other job') });
      expect((await readAll(ledger, 'jobs', 'j-1', 'result.xlsx'))!.toString()).toBe('second');
      expect((await readAll(ledger, 'jobs', 'j-1', 'empty.csv'))!.length).toBe(0);
      expect((await ledger.files.list('jobs', 'j-1')).map((f) => [f.name, f.size])).toEqual([['empty.csv', 0], ['result.xlsx', 6]]);
      expect(await ledger.files.usage()).toEqual({ files: 3, bytes: 15, oldest: '2031-05-06T07:08:09.000Z' });
      ledgers.clock.advance(1000);
      await ledger.files.put({ area: 'jobs', owner: 'j-0', name: 'result.xlsx', data: Buffer.from('newest') });
      expect(await ledger.files.newestOwners('jobs', 5)).toEqual(['j-0', 'j-2', 'j-1']);
      expect(await ledger.files.newestOwners('uploads', 5)).toEqual([]);
    });

    it('removes the files older than the retention cutoff and says how much space that freed', async () => {
      const ledger = await ledgers.open();
      await ledger.files.put({ area: 'uploads', owner: 'old', name: 'a.csv', data: Buffer.alloc(100) });
      await ledger.files.put({ area: 'jobs', owner: 'old', name: 'b.xlsx', data: Buffer.alloc(50) });
      ledgers.clock.advance(91 * 24 * 3_600_000);
      await ledger.files.put({ area: 'uploads', owner: 'new', name: 'c.csv', data: Buffer.alloc(10) });
      const removed = await ledger.files.removeOlderThan('2031-06-01T00:00:00.000Z');
      expect(removed).toMatchObject({ files: 2, bytes: 150 });
      expect(removed.owners).toEqual(expect.arrayContaining([{ area: 'uploads', owner: 'old' }, { area: 'jobs', owner: 'old' }]));
      expect(await ledger.files.read('uploads', 'old', 'a.csv')).toBeNull();
      expect(await ledger.files.usage()).toMatchObject({ files: 1, bytes: 10 });
    });
  });
});
