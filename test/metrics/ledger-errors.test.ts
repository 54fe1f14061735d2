/**
 * order_batch_ledger_errors_total counts what runs meet in the ledger, not only failed /readyz checks:
 * an outage of the database once (ridden through or not), and each failure that reaches its caller (a
 * refused write, a full disk) once, however many layers hand it on. Another run holding an order is no
 * error of the ledger.
 */
import { describe, expect, it } from 'vitest';
import { LedgerClaimLostError } from '../../src/ledger/errors.js';
import { guardLedger } from '../../src/ledger/guard.js';
import { OutageRider } from '../../src/ledger/postgres/outage.js';
import { classifySqliteError } from '../../src/ledger/sqlite/sqlite-errors.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics, observeInto, type Metrics } from '../../src/metrics/registry.js';

async function ledgerErrors(metrics: Metrics): Promise<number> {
  return (await metrics.ledgerErrors.get()).values[0]?.value ?? 0;
}

function sqliteFailure(code: string): Error {
  return Object.assign(new Error(`${code}: the storage refused`), { code });
}

describe('order_batch_ledger_errors_total', () => {
  it('counts a write the storage refused once, though the run and the ledger that handed it out both pass it on', async () => {
    const metrics = createMetrics();
    const stop = observeInto(metrics);
    try {
      const classify = (error: unknown) => classifySqliteError(error, '/srv/ledger.db', 'run');
      const run = { markAccepted: async () => Promise.reject(sqliteFailure('SQLITE_FULL')) };
      // The run is handed out by a guarded ledger and guarded again by an outer layer: one failure all the same.
      const ledger = guardLedger({ startRun: async () => guardLedger(run, classify) }, classify);
      const started = await ledger.startRun();
      await expect(started.markAccepted()).rejects.toThrow(/disk|full|space/i);
      expect(await ledgerErrors(metrics)).toBe(1);
      await expect(started.markAccepted()).rejects.toThrow();
      expect(await ledgerErrors(metrics)).toBe(2);
    } finally {
      stop();
    }
  });

  it('does not count another run holding an order, nor anything once the observer is gone', async () => {
    const metrics = createMetrics();
    const stop = observeInto(metrics);
    const ledger = guardLedger({ confirmHold: async () => Promise.reject(new LedgerClaimLostError('/srv/ledger.db', 'SO-1', 'run-1')) }, () => null);
    await expect(ledger.confirmHold()).rejects.toBeInstanceOf(LedgerClaimLostError);
    expect(await ledgerErrors(metrics)).toBe(0);
    stop();
    const full = guardLedger({ write: async () => Promise.reject(sqliteFailure('SQLITE_FULL')) }, (error) => classifySqliteError(error, '/srv/ledger.db', 'run'));
    await expect(full.write()).rejects.toThrow();
    expect(await ledgerErrors(metrics)).toBe(0);
  });

  it('counts an outage of the database once, however many tries it takes to ride it through', async () => {
    const metrics = createMetrics();
    const stop = observeInto(metrics);
    try {
      let now = 0;
      const rider = new OutageRider({ outageMs: 60_000, logger: silentLogger, location: 'postgres://ledger', monotonicNow: () => now, sleep: async (ms) => void (now += ms), random: () => 0.5 });
      let tries = 0;
      const answer = await rider.ride(async () => {
        if (++tries < 6) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return 'answered';
      });
      expect([answer, tries]).toEqual(['answered', 6]);
      expect(await ledgerErrors(metrics)).toBe(1);
    } finally {
      stop();
    }
  });
});
