/**
 * A run that stalls past its claim lease on a PostgreSQL ledger, and another run takes its orders over
 * (the lease forced to expire, the run's lease clock advanced: no waiting). The stalled run sends none
 * of those orders any more and reports them in_progress_elsewhere; an answer in flight is recorded when
 * it is an acceptance; the run goes on and ends normally; and the next run stores every order exactly once.
 */
import { expect, it } from 'vitest';
import { TransportError } from '../../../src/api/errors.js';
import type { ApiClient } from '../../../src/api/types.js';
import type { CreateOrderPayload } from '../../../src/contract/schemas.js';
import { submitOrders } from '../../../src/import/send/submit.js';
import { jobOf } from '../support.js';
import { openLedger } from '../../../src/ledger/index.js';
import type { Ledger, LedgerOptions } from '../../../src/ledger/types.js';
import { silentLogger } from '../../../src/log.js';
import { buildIntent } from '../../ledger/builders.js';
import { buildOrderPayload } from '../../support/order-payload.js';
import { BACKENDS } from '../../ledger/backends.js';
import { useLedgers } from '../../ledger/team-support.js';
import { describePostgres } from '../../support/postgres/database.js';

const LEASE_MS = 60_000;
const IDS = ['O-1', 'O-2', 'O-3', 'O-4'];

/** An API that stores what it is sent; `hold` keeps a POST's answer back until the test lets it go. */
function fakeApi() {
  const stored = new Set<string>();
  const posted: string[] = [];
  const gets: string[] = [];
  let hold: ((id: string) => Promise<void>) | undefined;
  const client = {
    async createOrder(payload: CreateOrderPayload) {
      const id = payload.orderDetails.customerOrderId;
      posted.push(id);
      if (stored.has(id)) throw new TransportError('already there', { method: 'POST', url: 'http://api.test/api/v0/orders', code: 'ECONNRESET', isSent: true });
      stored.add(id);
      await hold?.(id);
      // O-2's answer is lost on the way back (the order is stored): its outcome is unknown to the sender.
      if (id === 'O-2') throw new TransportError('socket hang up', { method: 'POST', url: 'http://api.test/api/v0/orders', code: 'ECONNRESET', isSent: true });
      return { status: 201, requestId: `req-${id}` };
    },
    async getOrder(id: string) {
      gets.push(id);
      return stored.has(id) ? { order: { customerOrderId: id } as never, requestId: `get-${id}` } : null;
    },
  } as unknown as ApiClient;
  return { client, stored, posted, gets, setHold: (next: typeof hold) => (hold = next) };
}

describePostgres('a run that loses its claim on orders mid-run', () => {
  const ledgers = useLedgers(BACKENDS.find((b) => b.hasConcurrentRuns)!);
  const open = (options: LedgerOptions = {}) => ledgers.open({ claimLeaseMs: LEASE_MS, ...options });

  it('sends those orders no more, reports them in_progress_elsewhere, goes on, and nothing is stored twice', async () => {
    let leaseClock = 0;
    const stalledLedger = await open({ leaseClock: () => leaseClock });
    const stalled = await stalledLedger.startRun({ command: 'import', files: ['day.csv'] });
    const api = fakeApi();
    const jobs = IDS.map((id, i) => jobOf(buildOrderPayload(id), { row: i + 2, file: 'day.csv', sha256: 'day' }));

    // O-1 and O-2 are in flight when the run stalls past its lease and another run takes every order over.
    let inFlight = 0;
    let bothInFlight!: () => void;
    const arrived = new Promise<void>((resolve) => (bothInFlight = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    api.setHold(async () => {
      if (++inFlight === 2) bothInFlight();
      await released;
    });
    const stalledRun = submitOrders(jobs, { client: api.client, ledger: stalledLedger, run: stalled, concurrency: 2, maxAttempts: 3, logger: silentLogger, backoff: { baseMs: 1, maxMs: 2 } });
    await arrived;
    await ledgers.store.expireLease!(stalled.runId);
    const otherLedger = await open();
    const other = await otherLedger.startRun({ command: 'import', files: ['day.csv'] });
    expect((await other.prepareSends(IDS.map((id) => buildIntent(id)))).map((r) => r.action)).toEqual(['lookup', 'lookup', 'lookup', 'lookup']);
    leaseClock += LEASE_MS;
    api.setHold(undefined);
    release();

    const { outcomes, stopped } = await stalledRun;
    expect(stopped).toBeUndefined();
    // Only the two POSTs that were in flight went out; the orders marked ahead were never sent by the stalled run.
    expect(api.posted).toEqual(['O-1', 'O-2']);
    expect(outcomes.map((o) => [o.status, o.posts])).toEqual([['accepted', 1], ['in_progress_elsewhere', 1], ['in_progress_elsewhere', 0], ['in_progress_elsewhere', 0]]);
    expect(outcomes[2]!.issues[0]).toMatchObject({ code: 'in_progress_elsewhere', severity: 'warning', row: 4 });
    expect(outcomes[2]!.issues[0]!.message).toMatch(/^Not sent by this run: it stalled past its claim on the order \(--claim-lease\), and another run took the order over \(import, process \d+ on .+\)\. It is not sent twice/);
    // What the stalled run learnt is recorded: O-1 was accepted, whoever holds it now.
    expect(await stalledLedger.get('O-1')).toMatchObject({ state: 'accepted', requestId: 'req-O-1' });
    await stalled.finish({ summary: {} });

    // The run that took the orders over dies; the next run settles them, each stored once.
    await otherLedger.close();
    const next = await open();
    const { outcomes: settled } = await submitOrders(jobs, { client: api.client, ledger: next, run: await next.startRun({ command: 'import', files: ['day.csv'] }), concurrency: 2, maxAttempts: 3, logger: silentLogger, backoff: { baseMs: 1, maxMs: 2 } });
    expect(settled.map((o) => o.status)).toEqual(['already_submitted', 'accepted', 'accepted', 'accepted']);
    expect(api.posted.filter((id) => id === 'O-1' || id === 'O-2')).toEqual(['O-1', 'O-2']);
    expect([...api.stored].sort()).toEqual(IDS);
    expect(new Set(api.posted).size).toBe(api.posted.length);
  });
});
