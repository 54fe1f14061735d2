import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { buildClock, makeTempDir } from './builders.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

describe('run history', () => {
  it('keeps runs newest first, with files, summary and result files, across reopening', () => {
    const clock = buildClock();
    const path = join(temp.dir, 'ledger.db');
    const ledger = openLedger(path, { now: clock.now });
    const first = ledger.startRun({ command: 'import', files: [{ file: 'a.csv', sha256: 'aa', rows: 3, orders: 2 }] });
    clock.advance(5_000);
    ledger.finishRun(first, { summary: { accepted: 2 }, resultFiles: ['a.result.xlsx'] });
    clock.advance(60_000);
    const second = ledger.startRun({ command: 'reconcile', files: ['b.csv'] });
    ledger.close();

    const reopened = openLedger(path, { now: clock.now });
    const runs = reopened.listRuns();
    expect(runs.map((r) => r.runId)).toEqual([second, first]);
    expect(runs[1]).toMatchObject({
      command: 'import',
      files: [{ file: 'a.csv', sha256: 'aa', rows: 3, orders: 2 }],
      startedAt: '2031-05-06T07:08:09.000Z',
      finishedAt: '2031-05-06T07:08:14.000Z',
      summary: { accepted: 2 },
      resultFiles: ['a.result.xlsx'],
      pid: process.pid,
    });
    expect(runs[0]).toMatchObject({ command: 'reconcile', files: [{ file: 'b.csv' }], finishedAt: null, summary: null, resultFiles: [] });
    expect(reopened.listRuns(1)).toHaveLength(1);
    expect(reopened.getRun(first)?.summary).toEqual({ accepted: 2 });
    expect(reopened.getRun('no-such-run')).toBeNull();
    expect(() => reopened.finishRun('no-such-run', { summary: {} })).toThrow(/no run/);
    reopened.close();
  });
});

describe('watermarks', () => {
  it('starts empty, stores and overwrites a watermark that survives reopening', () => {
    const path = join(temp.dir, 'ledger.db');
    const ledger = openLedger(path);
    expect(ledger.getWatermark('reconcile.updated')).toBeNull();
    ledger.setWatermark('reconcile.updated', '2031-01-01T00:00:00.000Z');
    ledger.setWatermark('reconcile.updated', '2031-01-02T00:00:00.000Z');
    ledger.setWatermark('reconcile.replaced', '2030-12-31T00:00:00.000Z');
    ledger.close();
    const reopened = openLedger(path);
    expect(reopened.getWatermark('reconcile.updated')).toBe('2031-01-02T00:00:00.000Z');
    expect(reopened.getWatermark('reconcile.replaced')).toBe('2030-12-31T00:00:00.000Z');
    expect(() => reopened.setWatermark('x', 'yesterday')).toThrow(/ISO 8601/);
    reopened.close();
  });
});
