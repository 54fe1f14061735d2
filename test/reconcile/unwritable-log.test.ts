/**
 * What the JSON log says when the reconciliation workbook cannot be written: that it was not written,
 * and where it should have gone; never "reconciliation written" with a file that is not there.
 * A path under a regular file stands in for a read-only folder: root (CI) may write into any folder.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { reconcile } from '../../src/reconcile/index.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createFakeApi } from './fake-api.js';

const dir = mkdtempSync(join(tmpdir(), 'reconcile-unwritable-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Line { level: number; msg: string; output?: string | null; notWritten?: string[] }

function capturingLogger(): { logger: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString().split('\n')) if (text.trim() !== '') lines.push(JSON.parse(text) as Line);
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

function world() {
  const ledger = openLedger(':memory:');
  const api = createFakeApi();
  const runId = ledger.startRun({ command: 'import', files: [] });
  for (let i = 0; i < 3; i++) {
    const id = `W-${i}`;
    const p = sentPayload(id);
    ledger.recordIntent({ payload: p }, runId);
    ledger.markSending(id);
    ledger.markAccepted(id, { submittedAt: at(1) });
    api.orders.set(id, readOf(expectOrderFromPayload(p), 'Shipped'));
    api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, lastUpdated: at(5), items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  }
  ledger.finishRun(runId, { summary: {} });
  return { ledger, api };
}

const base = { now: nowAt(48), lateAfterDays: 3, readerOverrides: { sleep: async () => {}, random: () => 0 } };

describe('the log of a reconciliation whose workbook cannot be written', () => {
  it('says the reconciliation was not written and names the file, never "reconciliation written"', async () => {
    const blocker = join(dir, 'reports');
    writeFileSync(blocker, 'a file where the reports folder should be');
    const out = join(blocker, 'rec.xlsx');
    const { logger, lines } = capturingLogger();
    const { ledger, api } = world();
    await reconcile({ ...base, ledger, client: api, out, logger });
    ledger.close();
    expect(existsSync(out)).toBe(false);
    expect(lines.map((l) => l.msg)).not.toContain('reconciliation written');
    const last = lines.at(-1)!;
    expect(last.level).toBeGreaterThanOrEqual(50);
    expect(last.msg).toContain('reconciliation done, but not written');
    expect(last.msg).toContain(out);
    expect(last.output).toBeNull();
    expect(last.notWritten).toEqual([out]);
  });

  it('still says "reconciliation written", with the file, when it was', async () => {
    const out = join(dir, 'rec.xlsx');
    const { logger, lines } = capturingLogger();
    const { ledger, api } = world();
    await reconcile({ ...base, ledger, client: api, out, logger });
    ledger.close();
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'reconciliation written', output: out });
  });
});
