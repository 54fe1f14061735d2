import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { buildIntent, collect, makeTempDir } from './builders.js';
import { spawnLedgerChild } from './spawn-child.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

describe('durability across a SIGKILL', () => {
  it('finds every record a killed run had committed', async () => {
    const path = join(temp.dir, 'ledger.db');
    const child = spawnLedgerChild(['record', path]);
    // Kill it mid-stream, while it is still writing.
    await child.waitForLine((l) => l === 'sending K-000300');
    await child.kill();

    const sending = child.lines.filter((l) => l.startsWith('sending ')).map((l) => l.slice('sending '.length));
    const accepted = new Set(child.lines.filter((l) => l.startsWith('accepted ')).map((l) => l.slice('accepted '.length)));
    expect(sending.length).toBeGreaterThan(300);

    const ledger = await openLedger(path);
    const records = await ledger.getMany(sending);
    expect([...records.keys()].sort()).toEqual([...sending].sort());
    for (const [id, record] of records) {
      // Reported accepted: accepted. Reported sending only: the kill may have come just after markAccepted.
      expect(record.state).toMatch(accepted.has(id) ? /^accepted$/ : /^(sending|accepted)$/);
      expect(record.attempts).toBe(1);
    }
    await ledger.close();
  });

  it('treats an order left sending by a killed run as unknown: the next run looks it up first', async () => {
    const path = join(temp.dir, 'ledger.db');
    const child = spawnLedgerChild(['record', path]);
    await child.waitForLine((l) => l === 'sending K-000001');
    await child.kill();
    const leftSending = child.lines.includes('accepted K-000001') ? null : 'K-000001';

    const ledger = await openLedger(path);
    const run = await ledger.startRun({ command: 'import', files: [] });
    const stillSending = (await collect(ledger.iterateRecords({ states: ['sending'] }))).map((r) => r.customerOrderId);
    expect(stillSending.length).toBeGreaterThan(0);
    if (leftSending) expect(stillSending).toContain(leftSending);
    for (const id of stillSending) {
      expect((await run.recordIntent(buildIntent(id))).action).toBe('lookup');
    }
    expect((await run.recordIntent(buildIntent('K-000000'))).action).toBe('already_submitted');
    await ledger.close();
  });
});
