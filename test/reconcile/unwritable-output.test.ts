/**
 * A reconciliation whose workbook or confirmations cannot be written (a read-only folder, a full disk)
 * still returns its report, with the failure in outputErrors; the watermark does not move, so the
 * next run covers what this one found; and the log says it was not written, never "reconciliation written". A path under a regular file (EEXIST: the folder cannot be made) is unwritable even for root.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { reconcile } from '../../src/reconcile/reconcile-run.js';
import { TRACKING_WATERMARK } from '../../src/reconcile/window.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createWorld } from './support.js';
import { recordingLogger } from '../support/recording-logger.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-unwritable');
const notAFolder = join(dir, 'file.txt');
writeFileSync(notAFolder, 'a file, not a folder');

function world() {
  const payloads = Array.from({ length: 30 }, (_, i) => sentPayload(`O-${i}`));
  return createWorld(payloads, (api, p) => {
    const id = p.orderDetails.customerOrderId;
    api.orders.set(id, readOf(expectOrderFromPayload(p), 'Shipped'));
    api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, lastUpdated: at(5), items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  });
}

const base = { now: nowAt(48), lateAfterDays: 3, logger: silentLogger, readerOverrides: { sleep: async () => {}, random: () => 0 } };

describe('a reconciliation that cannot write its files', () => {
  it('returns its report with the workbook in outputErrors, and moves no watermark', async () => {
    const { ledger, api } = await world();
    const out = join(notAFolder, 'rec.xlsx');
    const result = await reconcile({ ...base, ledger, client: api, out });
    expect(result.report.summary).toMatchObject({ shipped: 30 });
    expect(result.report.output).toBeNull();
    expect(result.report.outputErrors).toEqual([
      expect.objectContaining({ path: out, code: 'EEXIST', message: expect.stringMatching(/^Could not write the reconciliation workbook .*rec\.xlsx: a file of that name is in the way \(EEXIST\)\./) }),
    ]);
    expect((await ledger.getWatermark(TRACKING_WATERMARK))).toBeNull();
    expect((await ledger.listRuns()).at(-1)?.resultFiles).toEqual([]);
    await ledger.close();
  });

  it('writes the workbook and reports the confirmations it could not write', async () => {
    const { ledger, api } = await world();
    const out = join(dir, 'rec.xlsx');
    const confirmations = join(notAFolder, 'c.csv');
    const result = await reconcile({ ...base, ledger, client: api, out, confirmationsPath: confirmations });
    expect(existsSync(out)).toBe(true);
    expect(result.report.output).toBe(out);
    expect(result.report.confirmations).toBeUndefined();
    expect(result.report.outputErrors?.map((e) => [e.path, e.code])).toEqual([[confirmations, 'EEXIST']]);
    expect((await ledger.getWatermark(TRACKING_WATERMARK))).toBeNull();
    await ledger.close();
  });
});

interface Line { level: number; msg: string; output?: string | null; notWritten?: string[] }

/** A reconciliation written to `out`, with what it logged. */
async function reconcileLogged(out: string): Promise<Line[]> {
  const { logger, lines } = recordingLogger<Line>();
  const { ledger, api } = await world();
  await reconcile({ ...base, ledger, client: api, out, logger });
  await ledger.close();
  return lines;
}

describe('the log of a reconciliation whose workbook cannot be written', () => {
  it('says the reconciliation was not written and names the file, never "reconciliation written"', async () => {
    const out = join(notAFolder, 'logged.xlsx');
    const lines = await reconcileLogged(out);
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
    const out = join(dir, 'logged.xlsx');
    const lines = await reconcileLogged(out);
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'reconciliation written', output: out });
  });
});
