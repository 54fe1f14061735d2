/**
 * Uploads, results and the ledger hold customers' names, addresses and phones: a new ledger, the
 * work folder and what the app writes there are the running user's alone, whatever the umask.
 * (Windows has no such modes: skipped there only.)
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { openSession, SAMPLES, startTestApp, uploadForm, type TestApp } from './support.js';
import { makeTempFolder } from '../support/temp-dir.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

function everything(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(entry.parentPath, entry.name);
    return entry.isDirectory() ? [path, ...everything(path)] : [path];
  });
}

describe.skipIf(process.platform === 'win32')('the modes of what the web app creates', () => {
  let web: TestApp;
  let umask: number;
  beforeAll(async () => {
    // The most permissive umask: every mode below is the app's own doing.
    umask = process.umask(0);
    web = await startTestApp();
  });
  afterAll(async () => {
    process.umask(umask);
    await web?.close();
  });

  it('keeps the ledger, the work folder, uploads and results to the running user', async () => {
    const session = await openSession(web.app.url);
    const uploaded = await request(`${web.app.url}/upload`, {
      method: 'POST',
      body: uploadForm({ csrf: session.csrf, fileName: 'orders-with-mistakes.csv', content: readFileSync(join(SAMPLES, 'orders-with-mistakes.csv')) }),
      headers: { cookie: session.cookie, origin: web.app.url },
    });
    expect(uploaded.statusCode).toBe(303);
    await uploaded.body.text();
    await (await request(`${web.app.url}${String(uploaded.headers.location)}`, { headers: { cookie: session.cookie } })).body.text();

    expect(modeOf(web.ledgerPath).toString(8)).toBe('600');
    for (const suffix of ['-wal', '-shm']) expect(modeOf(`${web.ledgerPath}${suffix}`).toString(8), suffix).toBe('600');
    expect(modeOf(web.workDir).toString(8)).toBe('700');
    const made = everything(web.workDir);
    expect(made.some((path) => path.endsWith('.result.xlsx'))).toBe(true);
    expect(made.some((path) => path.endsWith('orders-with-mistakes.csv'))).toBe(true);
    for (const path of made) expect(`${path} ${modeOf(path).toString(8)}`).toBe(`${path} ${statSync(path).isDirectory() ? '700' : '600'}`);
  });

  it('creates the folders of a new ledger for the running user only', async () => {
    const dir = makeTempFolder('modes');
    try {
      const ledger = await openLedger(join(dir, 'team', '.order-batch', 'ledger.db'));
      await ledger.close();
      expect(modeOf(join(dir, 'team')).toString(8)).toBe('700');
      expect(modeOf(join(dir, 'team', '.order-batch')).toString(8)).toBe('700');
      expect(modeOf(join(dir, 'team', '.order-batch', 'ledger.db')).toString(8)).toBe('600');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
