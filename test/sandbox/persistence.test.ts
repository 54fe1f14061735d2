import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { loadStateFile } from '../../src/sandbox/persistence.js';
import { hourBefore, startTestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { makeTempFolder } from '../support/temp-dir.js';

let dir: string;
beforeEach(async () => {
  dir = makeTempFolder('sandbox-state');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('state persisted to a file', () => {
  it('gives a restarted sandbox the same orders, stock, counters and clock', async () => {
    const statePath = join(dir, 'state.json');
    const first = await startTestSandbox({ statePath });
    expect((await first.create(buildOrderPayload('P-1', { lines: [{ productId: 'PRD-1170', quantity: 4 }] }))).status).toBe(201);
    expect((await first.create(buildOrderPayload('P-1'))).status).toBe(409);
    first.advanceClock(72);
    const token = await first.token();
    const before = (await first.call('GET', '/api/v0/orders/P-1/packages', { token })).body.data;
    const stock = (await first.call('GET', '/api/v0/inventory/items?productId=PRD-1170', { token })).body.data;
    const now = first.now().toISOString();
    await first.close();

    const second = await startSandbox({ statePath, freezeClock: true, seed: 42 });
    try {
      expect(second.now().toISOString()).toBe(now);
      expect(second.stats()).toMatchObject({ orders: 1, postsReceived: 2, duplicatesRejected: 1 });
      const own = await request(`${second.url}/api/v0/auth/getToken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: second.clientId, secret: second.clientSecret }),
      });
      const fresh = ((await own.body.json()) as { token: string }).token;
      const get = async (path: string) => (await (await request(`${second.url}${path}`, { headers: { authorization: `Bearer ${fresh}` } })).body.json()) as any;
      expect((await get('/api/v0/orders/P-1/packages')).data).toEqual(before);
      expect((await get('/api/v0/inventory/items?productId=PRD-1170')).data).toEqual(stock);
    } finally {
      await second.close();
    }
  });

  it('resumes a running clock where it stood, never earlier', async () => {
    const statePath = join(dir, 'state.json');
    const first = await startSandbox({ statePath, startTime: '2031-01-01T00:00:00Z' });
    first.advanceClock(10);
    const stood = first.now().getTime();
    await first.close();
    const second = await startSandbox({ statePath });
    try {
      expect(second.now().getTime()).toBeGreaterThanOrEqual(stood);
      expect(second.now().getTime()).toBeLessThan(stood + 3_600_000);
    } finally {
      await second.close();
    }
  });

  it('leaves a complete JSON file and no temporary files behind', async () => {
    const statePath = join(dir, 'state.json');
    const sb = await startTestSandbox({ statePath });
    for (let i = 0; i < 5; i++) expect((await sb.create(buildOrderPayload(`W-${i}`))).status).toBe(201);
    await sb.close();
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(JSON.parse(await readFile(statePath, 'utf8')).orders).toHaveLength(5);
  });

  it('refuses to start on a file that is not a sandbox state, saying what to do', async () => {
    const statePath = join(dir, 'state.json');
    await writeFile(statePath, '{"hello":');
    await expect(startSandbox({ statePath })).rejects.toThrow(UsageError);
    await writeFile(statePath, '{"hello": 1}');
    await expect(startSandbox({ statePath })).rejects.toThrow(/delete it to start afresh/);
  });

  it('never leaves a torn file when the sandbox process is killed (SIGKILL) mid-run', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const entry = join(root, 'dist/sandbox/main.js');
    expect(existsSync(entry), 'this test runs the built sandbox: npm run build first').toBe(true);
    const statePath = join(dir, 'state.json');
    let kept = 0;
    for (let round = 0; round < 3; round++) {
      const script = `import { runSandbox } from ${JSON.stringify(entry)}; await runSandbox({ statePath: ${JSON.stringify(statePath)}, print: (l) => console.log(l) });`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.setEncoding('utf8').once('data', (d: string) => resolve(/^listening (\S+)/.exec(d)![1]!));
        child.once('exit', () => reject(new Error('sandbox child exited early')));
      });
      const tokenRes = await request(`${url}/api/v0/auth/getToken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: 'sandbox-client', secret: 'sandbox-secret' }),
      });
      const { token } = (await tokenRes.body.json()) as { token: string };
      const exited = new Promise((resolve) => child.once('exit', resolve));
      let n = 0;
      // Post orders until the kill lands: writes of the state file are in flight throughout.
      const posting = (async () => {
        for (;;) {
          const body = JSON.stringify(buildOrderPayload(`K${round}-${n++}`, { orderDate: hourBefore(Date.now()) }));
          const res = await request(`${url}/api/v0/orders`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
          await res.body.text();
        }
      })().catch(() => undefined);
      while (n < 40 + round * 37) await new Promise((r) => setTimeout(r, 1));
      child.kill('SIGKILL');
      await exited;
      await posting;
      // A torn file would make this throw; a kept one only ever grows.
      const saved = await loadStateFile(statePath);
      const count = saved?.orders.length ?? 0;
      expect(count).toBeGreaterThanOrEqual(kept);
      kept = count;
    }
    expect(kept).toBeGreaterThan(0);
  });
});

describe('a start time over a saved state', () => {
  it('never turns the clock back past the saved one, but may move it forward', async () => {
    const dir = makeTempFolder('sandbox-state');
    const statePath = join(dir, 'state.json');
    try {
      const first = await startSandbox({ statePath, startTime: '2031-05-01T00:00:00Z', freezeClock: true });
      first.advanceClock(48);
      await first.close();
      const earlier = await startSandbox({ statePath, startTime: '2031-04-01T00:00:00Z', freezeClock: true });
      expect(earlier.now().toISOString()).toBe('2031-05-03T00:00:00.000Z');
      await earlier.close();
      const later = await startSandbox({ statePath, startTime: '2031-06-01T00:00:00Z', freezeClock: true });
      expect(later.now().toISOString()).toBe('2031-06-01T00:00:00.000Z');
      await later.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
