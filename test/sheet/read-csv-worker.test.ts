/**
 * The worker-thread CSV path (large files) against the main-thread one: same rows, same errors, same result
 * CSV byte for byte. It runs the compiled worker, so `npm run build` first (as for the e2e tests).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeLargeCsv } from '../../bench/order-sheets.js';
import { checkFile } from '../../src/validate/check-file.js';
import { validationOutcome } from '../../src/validate/run-validate.js';
import { writeResultFile } from '../../src/result-files/write-result.js';
import { silentLogger } from '../../src/log.js';
import type { CellEdit } from '../../src/mapping/cell-edits.js';
import type { CompactRowStore } from '../../src/orders/row-store.js';
import type { OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import { readAll, readError, useTempDir } from './support.js';

const fixture = useTempDir();
const WORKER: OpenSheetOptions = { workerMinBytes: 0, workerUrl: new URL('../../dist/sheet/csv-parse-worker.js', import.meta.url) };
const MAIN: OpenSheetOptions = { workerMinBytes: Number.POSITIVE_INFINITY };
const NOW = new Date('2031-05-01T12:00:00Z');

const HEADER = 'customerOrderId,orderDate,firstName,lastName,addressLine1,city,stateOrProvince,postalOrZipCode,country,sku,quantity,unitPrice,,';
/** Rows that stress the text hand-over: quoting, formulas, separators, non-ASCII, short and wide rows, blank rows. */
const BODY = [
  'SO-1,2031-04-28,Ann,Lee,"1 Main St, Apt 2",Boston,MA,02134,US,MUG-1,2,9.50',
  'SO-1,2031-04-28,Ann,Lee,"1 Main St, Apt 2",Boston,MA,02134,US,=HYPERLINK("x"),1,-3',
  '',
  'SO-2,2031-04-28, Zoë ,Müller,"line one\nline two",Köln,,50667,DE,TEE\u001f2,1,4.00',
  ',,,,,,,,,,,,',
  'SO-3,2031-04-28,Bo,"Say ""hi""",2 Elm,Austin,TX,78701,US,CUP-😀,3,1.25,extra,beyond',
  'SO-4,2031-04-28,Cy,Ng,3 Oak\u001e,Dallas,TX,75201,US,PEN-1',
  '+SO-5,2031-04-28,Di,Ox,@4 Pine,Waco,TX,76701,US,PEN-2,1,1.00,',
];

function sheet(rows: number): string {
  const lines = [HEADER];
  for (let i = 0; i < rows; i++) lines.push(...BODY.map((line) => line.replaceAll('SO-', `SO-${i}-`)));
  return `\ufeff${lines.join('\r\n')}\r\n`;
}

async function validateToCsv(file: string, out: string, read: OpenSheetOptions, edits: CellEdit[] = []): Promise<Buffer> {
  const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
  const checked = await checkFile(file, { context, logger: silentLogger, read, settings: { edits } });
  if (!checked.ok) throw new Error(checked.message);
  const outcomes = checked.sheet.orders.map((o) => validationOutcome(o.issues));
  await writeResultFile({
    command: 'validate', sheet: checked.sheet, outcomes, extraColumns: [], path: out, isDefaultPath: false,
    generatedAt: NOW, notes: [], sourcesOfSale: [], logger: silentLogger,
  });
  return readFileSync(out);
}

describe('parsing a large CSV on a worker thread', () => {
  it('hands over the same numbered rows, batches and file hash as the main-thread reader', async () => {
    const file = fixture('rows.csv', sheet(80));
    const viaWorker = await readAll(file, { ...WORKER, batchSize: 50 });
    const viaMain = await readAll(file, { ...MAIN, batchSize: 50 });
    // Rows are all the worker hands over: the opened sheet is the same whichever thread parsed it.
    expect(Object.keys(viaWorker.sheet).sort()).toEqual(Object.keys(viaMain.sheet).sort());
    expect(viaWorker.sheet.headers).toEqual(viaMain.sheet.headers);
    expect(viaWorker.rows).toEqual(viaMain.rows);
    expect(viaWorker.batches).toEqual(viaMain.batches);
    expect(viaWorker.sheet.sha256()).toBe(viaMain.sheet.sha256());
  });

  it('writes a result CSV byte for byte equal to the main-thread path', async () => {
    const file = fixture('result.csv', sheet(120));
    const viaWorker = await validateToCsv(file, fixture('result-worker.csv'), WORKER);
    const viaMain = await validateToCsv(file, fixture('result-main.csv'), MAIN);
    expect(viaWorker.length).toBeGreaterThan(10_000);
    expect(viaWorker.equals(viaMain)).toBe(true);
  });

  it('gives back every stored row, its cells and its order payload as the main-thread path does', async () => {
    // The benchmark's generator: valid orders, most rows plain, some with a quoted product name.
    const file = fixture('store.csv');
    await writeLargeCsv(file, 600, NOW);
    const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
    const viaWorker = await checkFile(file, { context, logger: silentLogger, read: WORKER });
    const viaMain = await checkFile(file, { context, logger: silentLogger, read: MAIN });
    if (!viaWorker.ok || !viaMain.ok) throw new Error('expected both reads to succeed');
    const store = viaWorker.sheet.rows as CompactRowStore;
    expect([...viaWorker.sheet.rows]).toEqual([...viaMain.sheet.rows]);
    const mainStore = viaMain.sheet.rows as CompactRowStore;
    for (let i = store.size - 1; i >= 0; i -= 7) expect(store.cellsOf(store.rowNumberAt(i))).toEqual(mainStore.cellsOf(mainStore.rowNumberAt(i)));
    expect(viaWorker.sheet.orders.map((o) => o.payload)).toEqual(viaMain.sheet.orders.map((o) => o.payload));
    expect(viaWorker.sheet.orders.some((o) => o.payload !== undefined)).toBe(true);
  });

  it('writes rows handed over as their text, a corrected one included, as the main-thread path does', async () => {
    // The benchmark's generator: most rows hold no comma, so the worker hands them over with their text.
    const file = fixture('lines.csv');
    await writeLargeCsv(file, 600, NOW);
    const lines = readFileSync(file, 'utf8').split(/\r?\n/);
    const row = lines.findIndex((line, i) => i > 0 && line.length > 0 && !line.includes('"')) + 1;
    const edits = [{ row, col: 9, value: 'Corrected Name', by: 'local user', at: NOW.toISOString() }];
    const viaWorker = await validateToCsv(file, fixture('lines-worker.csv'), WORKER, edits);
    const viaMain = await validateToCsv(file, fixture('lines-main.csv'), MAIN, edits);
    expect(viaWorker.equals(viaMain)).toBe(true);
    expect(viaWorker.toString('utf8').split('\r\n')[row - 1]).toContain(',Corrected Name,');
  });

  it('reads a semicolon file with a sep= line and Windows-1252 text like the main-thread reader', async () => {
    const text = 'sep=;\r\ncustomerOrderId;name\r\nSO-1;Caf\xe9 \x80 1,50\r\n\r\nSO-2;"a;b"\r\n';
    const file = fixture('sep.csv', Buffer.from(text, 'latin1'));
    const viaWorker = await readAll(file, WORKER);
    const viaMain = await readAll(file, MAIN);
    expect(viaWorker.rows).toEqual(viaMain.rows);
    expect(viaWorker.rows.map((r) => r.rowNumber)).toEqual([2, 4]);
  });

  it('refuses an unclosed quote with the same one-line message, naming the row', async () => {
    const file = fixture('broken.csv', `${HEADER}\nSO-1,2031-04-28,Ann,"Lee,x\nSO-2,2031-04-28\n`);
    const viaWorker = await readError(file, WORKER);
    const viaMain = await readError(file, MAIN);
    expect(viaWorker.code).toBe('unreadable_file');
    expect(viaWorker.message).toBe(viaMain.message);
  });

  it('says when a file has a header but no orders, as the main-thread reader does', async () => {
    const file = fixture('header-only.csv', `${HEADER}\n\n`);
    expect((await readError(file, WORKER)).message).toBe((await readError(file, MAIN)).message);
  });

  it('refuses an unknown time zone as a setting, with the worker path as well', async () => {
    const file = fixture('zone.csv', sheet(5));
    const context = { now: NOW, timezone: 'Mars/Olympus', sourcesOfSale: [] };
    await expect(checkFile(file, { context, logger: silentLogger, read: WORKER })).rejects.toThrow(/Unknown time zone/);
  });

  it('stops its worker when the rows are abandoned early', async () => {
    const file = fixture('abandon.csv', sheet(400));
    const opened = await (await import('../../src/sheet/read-sheet.js')).openSheet(file, { ...WORKER, batchSize: 10 });
    for await (const batch of opened.rows) {
      expect(batch.length).toBe(10);
      break;
    }
    expect(() => opened.sha256()).toThrow();
  });
});
