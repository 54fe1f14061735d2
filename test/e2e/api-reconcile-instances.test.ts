/**
 * A reconciliation asked for through the API on a PostgreSQL ledger shared by two `serve` processes:
 * the instance that does not run it answers its state while it runs (never 404; its page says so too), and when the one
 * running it is killed (kill -9, mid-run, waiting on the API), the other finishes it.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { callApi, hasEnded, pollUntil } from '../web/api-support.js';
import { logIn } from '../web/support.js';
import { writeOrdersCsv } from './make-sheet.js';
import { runCli, tempDir } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

describePostgres('a reconciliation on two instances sharing a PostgreSQL ledger', () => {
  let db: TestDatabase | undefined;
  let sandbox: SandboxProcess | undefined;
  const serves: ServeProcess[] = [];
  afterEach(async () => {
    await Promise.all(serves.splice(0).map((s) => s.stop()));
    await sandbox?.stop();
    await db?.drop();
  });

  it('is answered by the other instance while it runs, and finished by it after a kill -9 of the one running it', async () => {
    db = await createDatabase();
    sandbox = await startSandboxProcess(['--seed', '11']);
    const cwd = tempDir();
    const ledger = ['--ledger', db.url];
    expect((await runCli(['users', 'add', 'olga', '--role', 'operator', ...ledger], { cwd, input: 'operator password 1\n' })).code).toBe(0);
    const token = (await runCli(['tokens', 'create', '--user', 'olga', '--name', 'erp', ...ledger], { cwd })).stdout.trim();
    writeOrdersCsv(join(cwd, 'orders.csv'), { orders: 3, prefix: 'REC', orderDate: new Date(Date.now() - 3_600_000) });
    const imported = await runCli(['import', join(cwd, 'orders.csv'), ...ledger, '--out', join(cwd, 'result.csv')], { cwd, env: sandbox.env, timeoutMs: 120_000 });
    expect(imported.code, imported.stderr).toBe(0);

    const args = [...ledger, '--claim-lease', '2', '--log-level', 'warn'];
    serves.push(await startServeProcess(args, { cwd, env: sandbox.env }), await startServeProcess(args, { cwd, env: sandbox.env }));
    // Every answer about an order waits ten minutes: the reconciliation cannot finish by itself.
    await sandbox.setFaults({ latencyMs: 600_000, paths: ['/api/v0/orders', '/api/v0/shipments'] });
    const started = await callApi(serves[0]!.url, 'POST', '/api/v1/reconciliations', { token });
    expect(started.status).toBe(202);
    const { id } = started.body as { id: string };

    const opened = await openLedger(db.url);
    try {
      let holderPid: number | undefined;
      for (let look = 0; look < 600 && holderPid === undefined; look++) {
        const job = await opened.jobs.get(id);
        if (job?.state === 'running' && job.holder) holderPid = Number(job.holder.split(':')[1]);
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const running = serves.find((s) => s.child.pid === holderPid);
      const other = serves.find((s) => s !== running)!;
      expect(running, 'one of the two instances runs the reconciliation').toBeDefined();

      const seen = await callApi(other.url, 'GET', `/api/v1/reconciliations/${id}`, { token });
      expect(seen.status).toBe(202);
      expect(seen.headers.location).toBe(`/api/v1/reconciliations/${id}`);
      expect(seen.body).toMatchObject({ id, state: 'running', createdBy: 'olga' });
      const session = await logIn(other.url, 'olga', 'operator password 1');
      const page = await request(`${other.url}/reconcile`, { headers: { cookie: session.cookie } });
      expect(await page.body.text()).toMatch(/data-reconciliation-running><p>A reconciliation asked for by olga is running since/);

      await running!.kill();
      await sandbox.setFaults({});
      const finished = await pollUntil(other.url, `/api/v1/reconciliations/${id}`, token, hasEnded, 2_400);
      expect(finished.status).toBe(200);
      expect(finished.body).toMatchObject({ id, state: 'finished', orders: 3 });
      expect(await opened.jobs.get(id)).toMatchObject({ kind: 'reconcile', state: 'done', starts: 2 });
      const [entry] = (await opened.audit.list({ actor: 'olga' })).filter((e) => e.action === 'reconcile');
      expect(entry).toMatchObject({ ref: id, detail: expect.stringMatching(/after 2 starts; API token erp/) });
      const workbook = await callApi(other.url, 'GET', `/api/v1/reconciliations/${id}/workbook`, { token });
      expect(workbook.bytes.subarray(0, 2).toString()).toBe('PK');
    } finally {
      await opened.close();
    }
  }, 240_000);
});
