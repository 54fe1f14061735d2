/**
 * How an import run ends, against the real sandbox: an edit to an order already sent is not applied
 * and says so (exit 1); one order in two files of a run goes out once; --archive reports where the
 * files are now, and keeps in the inbox a sheet with orders to fix; a missing order endpoint (404/405) stops the run like a 403, and the next run sends.
 */
import { mkdirSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImportAt, type ImportAtOptions } from '../support/run-import-at.js';
import { sandboxImportOptions } from './sandbox-import-options.js';
import type { JsonOrder } from '../../src/run-report/json.js';
import { importExitCode } from '../../src/run-report/exit-code.js';
import { formatValidateText } from '../../src/run-report/text.js';
import { openLedger } from '../../src/ledger/index.js';
import { useSandbox } from '../support/sandbox.js';
import { useTempDir } from '../support/temp-dir.js';
import { readWorkbook, rowValues, sheet } from '../support/xlsx-files.js';

const at = useTempDir('run-outcomes');
const NOW = new Date('2026-11-20T12:00:00Z');
const DAY = '2026-11-20';
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
const HEADER = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax,subTotal,grandTotal';

const sandbox = useSandbox({ startTime: NOW });

/** One line per order (totals filled in, so no computed_total warnings). */
function writeSheet(path: string, orders: { id: string; address?: string; quantity?: number; product?: string }[]): string {
  const rows = orders.map((o) => `${o.id},${DAY},OtherMarketplace,Ann Lee,${o.address ?? '1 Main St'},Springfield,IL,62704,US,217-555-0134,${o.product ?? 'PRD-1001'},1,Item,${o.quantity ?? 1},5.00,0.50,${5 * (o.quantity ?? 1)},${5 * (o.quantity ?? 1) + 0.5}`);
  writeFileSync(path, `${[HEADER, ...rows].join('\n')}\n`);
  return path;
}

function options(overrides: Partial<ImportAtOptions> & { baseUrl?: string }): ImportAtOptions {
  const { baseUrl, ...rest } = overrides;
  return sandboxImportOptions({ ...sandbox(), url: baseUrl ?? sandbox().url }, { context, ledgerPath: at('ledger.db') }, rest);
}

const ordersOf = (report: { orders: unknown[] }) => report.orders as JsonOrder[];

describe('an edit to an order already sent', () => {
  it('is not applied, is counted, and the run exits 1; an identical re-run still exits 0', async () => {
    const ledgerPath = at('edit-ledger.db');
    const file = writeSheet(at('edit.csv'), [{ id: 'ED-1' }]);
    const first = await runImportAt(options({ files: [file], ledgerPath }));
    expect(first.report.summary).toEqual({ accepted: 1 });

    writeSheet(file, [{ id: 'ED-1', address: '9 Elm St', quantity: 3 }]);
    const posts = sandbox().stats().postsReceived;
    const edited = await runImportAt(options({ files: [file], ledgerPath }));
    expect(sandbox().stats().postsReceived).toBe(posts);
    expect(edited.report.summary).toEqual({ already_submitted: 1 });
    expect(edited.report.contentsDiffer).toBe(1);
    expect(ordersOf(edited.report)[0]!.issues).toContainEqual(expect.objectContaining({ code: 'already_exists', severity: 'error', row: 2 }));
    expect(edited.hasProblems).toBe(true);
    expect(importExitCode(edited)).toBe(1);
    const text = formatValidateText(edited.report);
    expect(text).toContain('Orders: 1 already_submitted');
    expect(text).toContain('Not applied: 1 order was already sent with other contents');
    // Still not applied the next time: the network keeps the first version.
    expect(importExitCode(await runImportAt(options({ files: [file], ledgerPath })))).toBe(1);

    writeSheet(file, [{ id: 'ED-1' }]);
    const same = await runImportAt(options({ files: [file], ledgerPath }));
    expect(same.report.summary).toEqual({ already_submitted: 1 });
    expect(same.report.contentsDiffer).toBeUndefined();
    expect(importExitCode(same)).toBe(0);
    expect(formatValidateText(same.report)).not.toContain('Not applied');
  });
});

describe('one order in two files of a run', () => {
  it('goes out once: the identical copy is already_submitted, the changed one is not sent and says where the sent one is', async () => {
    const inbox = at('dup-in');
    mkdirSync(inbox);
    const day1 = writeSheet(join(inbox, 'day1.csv'), [{ id: 'DF-1' }, { id: 'DF-2', product: 'PRD-1002' }]);
    const day2 = writeSheet(join(inbox, 'day2.csv'), [{ id: 'DF-2', product: 'PRD-1002' }, { id: 'DF-1', address: '9 Elm St', quantity: 3 }]);
    const ledgerPath = at('dup-ledger.db');
    const posts = sandbox().stats().postsReceived;
    const result = await runImportAt(options({ files: [inbox], ledgerPath }));

    expect(sandbox().stats().postsReceived - posts).toBe(2);
    expect(result.report.summary).toEqual({ accepted: 2, already_submitted: 2 });
    expect(result.report.contentsDiffer).toBe(1);
    expect(importExitCode(result)).toBe(1);
    const byFile = (file: string, id: string) => ordersOf(result.report).find((o) => o.file === file && o.customerOrderId === id)!;
    expect(byFile(day1, 'DF-1').status).toBe('accepted');
    expect(byFile(day1, 'DF-2').status).toBe('accepted');

    const same = byFile(day2, 'DF-2');
    expect(same.status).toBe('already_submitted');
    expect(same.requestId).toBe(byFile(day1, 'DF-2').requestId);
    expect(same.submittedAt).toBe(byFile(day1, 'DF-2').submittedAt);
    // As on a re-run of the same sheet: no issue, so the Summary sheet counts no error for it.
    expect(same.issues).toEqual([]);

    const changed = byFile(day2, 'DF-1');
    expect(changed.status).toBe('already_submitted');
    expect(changed.issues).toEqual([expect.objectContaining({ code: 'already_exists', severity: 'error', row: 3, column: 'customerOrderId' })]);
    expect(changed.issues[0]!.message).toContain(`${day1}, row 2`);
    expect(changed.issues[0]!.message).toContain('not applied');
    expect(changed.issues[0]!.message).not.toMatch(/rejected/);

    // The network and the ledger hold day1's version.
    const ledger = await openLedger(ledgerPath);
    try {
      expect((await ledger.get('DF-1'))!.payload.orderDetails.lineItems[0]!.quantity).toBe(1);
    } finally {
      await ledger.close();
    }

    // The result workbook of day2 says the same, row for row.
    const results = sheet(await readWorkbook(join(inbox, 'day2.import-result.xlsx')), 'Results');
    const header = rowValues(results, 1);
    const status = header.indexOf('status');
    const issues = header.indexOf('issues');
    expect(rowValues(results, 2)[status]).toBe('already_submitted');
    expect(rowValues(results, 2)[issues] ?? '').toBe('');
    expect(rowValues(results, 3)[status]).toBe('already_submitted');
    expect(String(rowValues(results, 3)[issues])).toContain('with different contents');
  });
});

describe('--archive', () => {
  it('reports the result and the sheet where they are now, in text, JSON and the ledger', async () => {
    const inbox = at('arch-in');
    mkdirSync(inbox);
    const file = writeSheet(join(inbox, 'monday.csv'), [{ id: 'AR-1' }]);
    const archive = at('arch-done');
    const ledgerPath = at('arch-ledger.db');
    const result = await runImportAt(options({ files: [inbox], archiveDir: archive, ledgerPath }));

    const archivedResult = join(archive, 'monday.import-result.xlsx');
    expect(result.report.summary).toEqual({ accepted: 1 });
    expect(result.report.output).toBe(archivedResult);
    expect(existsSync(archivedResult)).toBe(true);
    expect(readdirSync(inbox)).toEqual([]);
    expect(result.report.archived).toEqual([{ file, sheet: join(archive, 'monday.csv'), result: archivedResult }]);
    const text = formatValidateText(result.report);
    expect(text).toContain(`Result: ${archivedResult}\n`);
    expect(text).toContain(`Archived: ${file} to ${join(archive, 'monday.csv')}, with its result\n`);
    const ledger = await openLedger(ledgerPath);
    try {
      expect((await ledger.getRun(result.runId!))!.resultFiles).toEqual([archivedResult]);
    } finally {
      await ledger.close();
    }
  });
});

describe('--archive of an inbox with orders to fix', () => {
  it('keeps a sheet with an invalid order in the inbox, says where and why, and lists the files it passed over', async () => {
    const inbox = at('fix-in');
    mkdirSync(inbox);
    const file = writeSheet(join(inbox, 'tuesday.csv'), [{ id: 'FX-1' }, { id: 'FX-2', quantity: 0 }]);
    writeFileSync(join(inbox, 'README.txt'), 'Drop the sheets here.\n');
    writeFileSync(join(inbox, '~$tuesday.xlsx'), 'lock');
    const archive = at('fix-done');
    const ledgerPath = at('fix-ledger.db');
    const result = await runImportAt(options({ files: [inbox], archiveDir: archive, ledgerPath }));

    expect(result.report.summary).toEqual({ accepted: 1, invalid: 1 });
    const resultFile = join(inbox, 'tuesday.import-result.xlsx');
    expect(readdirSync(inbox).sort()).toEqual(['README.txt', 'tuesday.csv', 'tuesday.import-result.xlsx', '~$tuesday.xlsx']);
    expect(existsSync(archive)).toBe(false);
    expect(result.report.archived).toBeUndefined();
    expect(result.report.output).toBe(resultFile);
    expect(result.report.kept).toEqual([{ file, result: resultFile, reason: expect.stringMatching(/^1 order needs fixing \(invalid, or rejected by the API\): correct it in this sheet/) }]);
    expect(result.report.kept![0]!.reason).toContain(`import the Fix sheet of ${resultFile}`);
    expect(result.report.skipped).toEqual([
      { file: join(inbox, 'README.txt'), reason: 'text without order columns on its first line' },
      { file: join(inbox, '~$tuesday.xlsx'), reason: "Excel's lock file" },
    ]);
    expect(formatValidateText(result.report)).toContain(`Not archived: ${file} stays where it is, with its result ${resultFile}: 1 order needs fixing`);
    expect(importExitCode(result)).toBe(1);

    // Fixed in place: the next night sends the fixed order alone, and the sheet goes.
    writeSheet(file, [{ id: 'FX-1' }, { id: 'FX-2', quantity: 2 }]);
    const fixed = await runImportAt(options({ files: [inbox], archiveDir: archive, ledgerPath }));
    expect(fixed.report.summary).toEqual({ already_submitted: 1, accepted: 1 });
    expect(fixed.report.kept).toBeUndefined();
    expect(readdirSync(archive).sort()).toEqual(['tuesday.csv', 'tuesday.import-result.xlsx']);
    expect(readdirSync(inbox).sort()).toEqual(['README.txt', '~$tuesday.xlsx']);
  });
});

type Scripted = { status: number; contentType: string; text: string };

/**
 * A proxy in front of the sandbox, recording what it is asked; `answer` may answer a request itself
 * (a proxy with a wrong path, a scripted refusal) instead of forwarding it.
 */
async function startProxy(target: string) {
  const state = {
    seen: [] as string[],
    answer: null as ((method: string, path: string, body: string) => Scripted | null) | null,
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    state.seen.push(`${req.method} ${path}`);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const scripted = state.answer?.(req.method ?? 'GET', path, body.toString('utf8')) ?? null;
      if (scripted) {
        res.writeHead(scripted.status, { 'content-type': scripted.contentType });
        res.end(scripted.text);
        return;
      }
      const upstream = new URL(req.url ?? '/', target);
      const forward = request(upstream, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    posts: () => state.seen.filter((r) => r === 'POST /api/v0/orders').length,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

const page = (status: number): Scripted => ({ status, contentType: 'text/html', text: `<html><body>${status === 404 ? 'Not Found' : 'Method Not Allowed'}</body></html>` });

describe('no order endpoint at the configured address', () => {
  it.each([404, 405])('a %i to POST /api/v0/orders stops the run (exit 3), stores nothing, and the next run sends the orders', async (status) => {
    const proxy = await startProxy(sandbox().url);
    try {
      proxy.answer = (method, path) => (method === 'POST' && path === '/api/v0/orders' ? page(status) : null);
      const file = writeSheet(at(`endpoint-${status}.csv`), [{ id: `NE${status}-1` }, { id: `NE${status}-2` }, { id: `NE${status}-3` }]);
      const ledgerPath = at(`endpoint-${status}.db`);
      const posts = sandbox().stats().postsReceived;
      const stopped = await runImportAt(options({ files: [file], ledgerPath, baseUrl: proxy.url, concurrency: 1 }));

      expect(stopped.apiUnusable).toMatchObject({ kind: 'no_endpoint' });
      expect(stopped.apiUnusable!.message).toContain(`HTTP ${status}`);
      expect(stopped.apiUnusable!.message).toContain('FULFILLMENT_BASE_URL');
      expect(importExitCode(stopped)).toBe(3);
      expect(stopped.report.summary).toEqual({ failed: 3 });
      expect(ordersOf(stopped.report).flatMap((o) => o.issues.map((i) => i.code))).not.toContain('api_rejected');
      // One POST tried, the others not sent; none reached the network.
      expect(proxy.posts()).toBe(1);
      expect(sandbox().stats().postsReceived).toBe(posts);

      // The address is fixed: every order goes out, once, with no lookup first (a 404/405 stored nothing).
      proxy.answer = null;
      proxy.seen.length = 0;
      const again = await runImportAt(options({ files: [file], ledgerPath, baseUrl: proxy.url }));
      expect(again.report.summary).toEqual({ accepted: 3 });
      expect(importExitCode(again)).toBe(0);
      expect(proxy.posts()).toBe(3);
      expect(proxy.seen.filter((r) => r.startsWith('GET /api/v0/orders/'))).toEqual([]);
      expect(sandbox().stats().postsReceived).toBe(posts + 3);
    } finally {
      await proxy.close();
    }
  });

  it('a 404 to the online checks stops the run too (exit 3), before anything is sent', async () => {
    const proxy = await startProxy(sandbox().url);
    try {
      proxy.answer = (method, path) => (method === 'GET' && path.startsWith('/api/v0/') ? page(404) : null);
      const file = writeSheet(at('facts-404.csv'), [{ id: 'NF-1' }]);
      const result = await runImportAt(options({ files: [file], ledgerPath: at('facts-404.db'), baseUrl: proxy.url }));
      expect(result.apiUnusable).toMatchObject({ kind: 'no_endpoint' });
      expect(importExitCode(result)).toBe(3);
      expect(result.report.summary).toEqual({ failed: 1 });
      expect(proxy.posts()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('keeps 400 and 409 as they are: rejected orders, and the run goes on (exit 1)', async () => {
    const proxy = await startProxy(sandbox().url);
    try {
      proxy.answer = (method, path, body) => {
        if (method !== 'POST' || path !== '/api/v0/orders') return null;
        if (body.includes('"BP-1"')) return { status: 400, contentType: 'application/json', text: JSON.stringify({ message: 'Validation failed', errors: [{ field: 'orderDetails.orderDate', message: 'too old' }], requestId: 'r-400' }) };
        if (body.includes('"BP-2"')) return { status: 409, contentType: 'application/json', text: JSON.stringify({ message: "Order 'BP-2' already exists.", requestId: 'r-409' }) };
        return null;
      };
      const file = writeSheet(at('refused.csv'), [{ id: 'BP-1' }, { id: 'BP-2' }, { id: 'BP-3' }]);
      const result = await runImportAt(options({ files: [file], ledgerPath: at('refused.db'), baseUrl: proxy.url, concurrency: 1 }));
      expect(result.apiUnusable).toBeUndefined();
      expect(result.report.summary).toEqual({ rejected: 2, accepted: 1 });
      expect(importExitCode(result)).toBe(1);
      const codes = ordersOf(result.report).map((o) => [o.customerOrderId, o.httpStatus, o.issues.map((i) => i.code)]);
      expect(codes).toEqual([['BP-1', 400, ['api_rejected']], ['BP-2', 409, ['already_exists']], ['BP-3', 201, []]]);
    } finally {
      await proxy.close();
    }
  });
});
