/**
 * serve --sandbox without --now: sheets are checked as of the embedded sandbox's clock, which the
 * page moves on, so the check and the API judge an order's date by the same clock.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/web/verdict.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { openSession, startTestApp, uploadForm, type TestApp } from './support.js';

const DAY_MS = 24 * 3_600_000;

describe('checking a sheet on serve --sandbox after the clock was moved', () => {
  let web: TestApp | undefined;
  afterEach(() => web?.close());

  it('judges order dates on the sandbox clock, not the local one', async () => {
    web = await startTestApp({ now: undefined });
    const { url } = web.app;
    const session = await openSession(url);
    const headers = { cookie: session.cookie, origin: url };
    // 8 × 96 h: the sandbox is 32 days ahead of this computer.
    for (let i = 0; i < 8; i++) {
      const moved = await request(`${url}/sandbox/advance`, { method: 'POST', body: `_csrf=${session.csrf}&hours=96`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
      await moved.body.text();
      expect(moved.statusCode).toBe(303);
    }
    const localNow = Date.now();
    // In five days by this computer's clock (in the future here, 27 days ago on the sandbox's) and
    // yesterday by it (33 days old on the sandbox's: the API would reject it as too old).
    const ahead = writeOrdersCsv(join(web.dir, 'ahead.csv'), { orders: 1, prefix: 'AHEAD', orderDate: new Date(localNow + 5 * DAY_MS) });
    const old = writeOrdersCsv(join(web.dir, 'old.csv'), { orders: 1, prefix: 'OLD', orderDate: new Date(localNow - DAY_MS) });
    const [header, ...aheadRows] = readFileSync(join(web.dir, 'ahead.csv'), 'utf8').split(/\r?\n/);
    const [, ...oldRows] = readFileSync(join(web.dir, 'old.csv'), 'utf8').split(/\r?\n/);
    const uploaded = await request(`${url}/upload`, {
      method: 'POST',
      body: uploadForm({ csrf: session.csrf, fileName: 'orders.csv', content: [header, ...aheadRows, ...oldRows].join('\n') }),
      headers,
    });
    await uploaded.body.text();
    const uploadId = String(uploaded.headers.location).replace('/uploads/', '');
    const verdict = JSON.parse(readFileSync(join(web.workDir, 'uploads', uploadId, 'verdict.json'), 'utf8')) as Verdict;

    expect(Date.parse(verdict.checkedAsOf) - localNow).toBeGreaterThan(31 * DAY_MS);
    const statusOf = (id: string) => verdict.orders.find((o) => o.customerOrderId === id)?.status;
    expect(statusOf(ahead.ids[0]!)).toBe('valid');
    expect(statusOf(old.ids[0]!)).toBe('invalid');
  });
});
