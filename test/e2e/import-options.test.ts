/** import --archive, --dry-run and validate --online, through the real CLI against a sandbox process. */
import { existsSync, readdirSync, writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './run-cli.js';
import { writeOrdersCsv } from './make-sheet.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
});
afterAll(async () => {
  await sandbox.stop();
});

const recent = () => new Date(Date.now() - 3_600_000);

describe('import options and online checks', () => {
  it('archives a settled sheet with its result, so the next run of the folder finds nothing new', async () => {
    const dir = tempDir();
    const inbox = join(dir, 'inbox');
    const done = join(dir, 'done');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'monday.csv'), { orders: 3, prefix: 'ARCH', orderDate: recent() });
    const args = ['import', inbox, '--archive', done, '--ledger', join(dir, 'ledger.db'), '--json'];
    const first = await runCli(args, { env: sandbox.env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).summary).toEqual({ accepted: 3 });
    expect(readdirSync(inbox)).toEqual([]);
    expect(readdirSync(done).sort()).toEqual(['monday.csv', 'monday.import-result.xlsx']);
    const second = await runCli(args, { env: sandbox.env });
    expect(second.code).toBe(0); // an empty inbox is a normal night
    expect(JSON.parse(second.stdout)).toMatchObject({ input: [], summary: {}, orders: [] });
    const text = await runCli(['import', inbox, '--ledger', join(dir, 'ledger.db')], { env: sandbox.env });
    expect(text.stdout).toContain('No order sheets found');
  });

  it('leaves a sheet in place when an order failed, so tomorrow retries it', async () => {
    const dir = tempDir();
    const inbox = join(dir, 'inbox');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'tuesday.csv'), { orders: 2, prefix: 'STAY', orderDate: recent() });
    const env = { ...sandbox.env, FULFILLMENT_BASE_URL: 'http://127.0.0.1:9' };
    const res = await runCli(['import', inbox, '--archive', join(dir, 'done'), '--ledger', join(dir, 'ledger.db'), '--json', '--max-attempts', '1'], { env });
    expect(res.code).toBe(3);
    expect(existsSync(join(inbox, 'tuesday.csv'))).toBe(true);
    expect(existsSync(join(dir, 'done'))).toBe(false);
  });

  it('sends nothing with --dry-run', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 4, prefix: 'DRY', orderDate: recent() });
    const before = (await sandbox.stats()).postsReceived;
    const res = await runCli(['import', sheet, '--dry-run', '--ledger', join(dir, 'ledger.db'), '--json', '--out', join(dir, 'r.csv')], { env: sandbox.env });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).summary).toEqual({ valid: 4 });
    expect((await sandbox.stats()).postsReceived).toBe(before);
  });

  it('validate --online finds unknown products, stock-outs and orders the API already has', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 3, prefix: 'ONL', orderDate: recent() });
    // ONL-00001 is sent first (so it exists, sent by another ledger), then lines name an unknown and a stock-out product.
    const seed = join(dir, 'seed.csv');
    writeFileSync(seed, readFileSync(sheet, 'utf8').split('\n').filter((l, i) => i === 0 || l.startsWith('ONL-00001,')).join('\n'));
    expect((await runCli(['import', seed, '--ledger', join(dir, 'other-ledger.db'), '--out', join(dir, 's.csv')], { env: sandbox.env })).code).toBe(0);
    const text = readFileSync(sheet, 'utf8')
      .replace(/^(ONL-00002,.*?)PRD-\d{4}/m, '$1NOPE-404')
      .replace(/^(ONL-00003,.*?)PRD-\d{4}/m, '$1PRD-1999');
    writeFileSync(sheet, text);
    const res = await runCli(['validate', sheet, '--online', '--ledger', join(dir, 'ledger.db'), '--json', '--out', join(dir, 'v.csv')], { env: sandbox.env });
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout);
    const codes = (id: string) => report.orders.find((o: { customerOrderId: string }) => o.customerOrderId === id).issues.map((i: { code: string }) => i.code);
    expect(codes('ONL-00001')).toContain('already_exists');
    expect(codes('ONL-00002')).toContain('unknown_product');
    expect(codes('ONL-00003')).toContain('out_of_stock');
    // The same check with the ledger that sent ONL-00001: ours, so not an error.
    const ours = await runCli(['validate', sheet, '--online', '--ledger', join(dir, 'other-ledger.db'), '--json', '--out', join(dir, 'v2.csv')], { env: sandbox.env });
    const ourReport = JSON.parse(ours.stdout);
    const first = ourReport.orders.find((o: { customerOrderId: string }) => o.customerOrderId === 'ONL-00001');
    expect(first.issues.map((i: { code: string }) => i.code)).not.toContain('already_exists');
  });
});
