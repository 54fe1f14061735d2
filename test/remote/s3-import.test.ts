/** Importing from an S3 prefix against moto's S3 server (started here) and the sandbox; https:// sheets from a local server. */
import { createServer, type Server } from 'node:http';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openS3Store } from '../../src/remote/stores/s3-store.js';
import { motoMissing, S3_SECRET, startMoto, type S3Server } from '../support/s3.js';
import { useTempDir } from '../support/temp-dir.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { hasStackTrace, runCli } from '../e2e/run-cli.js';
import { startSandboxProcess, type SandboxProcess } from '../e2e/sandbox-process.js';

const missing = motoMissing();

describe.skipIf(missing !== null)('import from an S3 prefix (moto)', () => {
  const path = useTempDir('s3-import');
  let s3: S3Server;
  let client: S3Client;
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    s3 = await startMoto();
    client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'moto-key', secretAccessKey: S3_SECRET } });
    await client.send(new CreateBucketCommand({ Bucket: 'drop' }));
    sandbox = await startSandboxProcess();
    mkdirSync(path('host'));
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.stop();
    await sandbox?.stop();
  });

  const keys = async (prefix: string) => ((await client.send(new ListObjectsV2Command({ Bucket: 'drop', Prefix: prefix }))).Contents ?? []).map((o) => o.Key).sort();
  const run = (args: string[]) => runCli(args, { cwd: path('host'), env: { ...sandbox.env, ...s3.env, ORDER_BATCH_LEDGER: join(path('host'), 'ledger.db') } });

  it('imports the sheets under a prefix once, archives them with their results by copy and delete, and writes --out to S3', async () => {
    writeOrdersCsv(path('orders.csv'), { orders: 5, prefix: 'S3A', orderDate: new Date(Date.now() - 3_600_000) });
    await client.send(new PutObjectCommand({ Bucket: 'drop', Key: 'inbox/orders.csv', Body: readFileSync(path('orders.csv')) }));
    const args = ['import', 's3://drop/inbox/', '--archive', 's3://drop/done/', '--settle', '0', '--json', '--log-level', 'error'];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).summary).toEqual({ accepted: 5 });
    expect(await keys('inbox/')).toEqual([]);
    expect(await keys('done/')).toEqual(['done/orders.csv', 'done/orders.import-result.xlsx']);
    await client.send(new PutObjectCommand({ Bucket: 'drop', Key: 'inbox/orders.csv', Body: readFileSync(path('orders.csv')) }));
    // The same content again is the same ETag: already processed, nothing sent.
    const again = await run(args);
    expect(JSON.parse(again.stdout).remote.alreadyProcessed).toEqual(['s3://drop/inbox/orders.csv']);
    const reconcile = await run(['reconcile', '--out', 's3://drop/reports/reconciliation.xlsx', '--json', '--log-level', 'error']);
    expect(reconcile.code, reconcile.stderr).toBeLessThanOrEqual(1);
    expect(JSON.parse(reconcile.stdout).output).toBe('s3://drop/reports/reconciliation.xlsx');
    const workbook = await client.send(new GetObjectCommand({ Bucket: 'drop', Key: 'reports/reconciliation.xlsx' }));
    expect((await workbook.Body!.transformToByteArray()).subarray(0, 2)).toEqual(new Uint8Array([0x50, 0x4b]));
    for (const text of [first.stderr, first.stdout, again.stdout, reconcile.stdout, reconcile.stderr, readFileSync(join(path('host'), 'ledger.db')).toString('latin1')]) {
      expect(text).not.toContain(S3_SECRET);
    }
    expect(readdirSync(join(path('host'), 'remote'))).toEqual([]);
  });

  it("reads the server's clock from its answers, which a file's age is counted on", async () => {
    await client.send(new PutObjectCommand({ Bucket: 'drop', Key: 'clock/a.csv', Body: 'customerOrderId\n' }));
    const saved = { ...process.env };
    Object.assign(process.env, s3.env);
    const store = openS3Store({ kind: 's3', bucket: 'drop', key: 'clock/', isFolder: true, shown: 's3://drop/clock/' }, { knownHostsPath: '', settleSeconds: 0, s3Endpoint: s3.endpoint });
    try {
      expect(store.serverClockOffsetMs?.()).toBeUndefined();
      expect((await store.list('clock/')).map((e) => e.name)).toEqual(['a.csv']);
      // moto runs on this host's clock: the offset is there, and within the Date header's one-second rounding.
      expect(Math.abs(store.serverClockOffsetMs!()!)).toBeLessThanOrEqual(2_000);
    } finally {
      await store.close();
      process.env = saved;
    }
  });

  it('says in one line that a bucket does not exist (exit 2)', async () => {
    const result = await run(['validate', 's3://no-such-bucket/inbox/']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('order-batch: s3://no-such-bucket/inbox/: no such bucket.');
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});

describe('an https:// sheet (a local http server: plain http is allowed to 127.0.0.1 only)', () => {
  const path = useTempDir('http-source');
  let server: Server;
  let base = '';
  beforeAll(async () => {
    writeOrdersCsv(path('orders.csv'), { orders: 2, prefix: 'HTA', orderDate: new Date(Date.now() - 3_600_000) });
    server = createServer((req, res) => {
      if (req.url?.startsWith('/orders.csv?')) res.writeHead(200, { etag: '"v1"' }).end(readFileSync(path('orders.csv')));
      else res.writeHead(req.url?.startsWith('/secret') ? 403 : 404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    mkdirSync(path('host'));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('validates a sheet behind a link, never showing its query string, and writes the result here', async () => {
    const result = await runCli(['validate', `${base}/orders.csv?X-Amz-Signature=presigned-secret-991`, '--json', '--log-level', 'error'], { cwd: path('host') });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.input[0].file).toBe(`${base}/orders.csv?…`);
    expect(report.output).toBe(join(path('host'), 'orders.result.xlsx'));
    expect(result.stdout + result.stderr).not.toContain('presigned-secret-991');
  });

  it('says 404 and 403 in one line naming the link without its query (exit 2)', async () => {
    const missingSheet = await runCli(['validate', `${base}/gone.csv?token=abc-secret`], { cwd: path('host') });
    expect(missingSheet.code).toBe(2);
    expect(missingSheet.stderr.trim()).toBe(`order-batch: ${base}/gone.csv?…: not found (HTTP 404).`);
    const denied = await runCli(['validate', `${base}/secret.csv`], { cwd: path('host') });
    expect(denied.stderr.trim()).toMatch(/access denied \(HTTP 403/);
    const plain = await runCli(['validate', 'http://example.com/orders.csv'], { cwd: path('host') });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/plain http:\/\/ is taken only from this machine/);
  });
});
