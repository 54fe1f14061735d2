import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckQueue } from '../../src/web/check-queue.js';
import { openSession, SAMPLES, startTestApp, uploadForm, type TestApp } from './support.js';

/** A check that ends when the test says so. */
function held(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('the line of uploads waiting to be checked', () => {
  it('runs at most `limit` checks at once, the others in the order they came, each knowing its place', async () => {
    const queue = new CheckQueue(2);
    const checks = [held(), held(), held(), held()];
    const started: number[] = [];
    const runs = checks.map((check, i) => queue.run({ id: `u${i}`, fileName: `f${i}.csv` }, async () => {
      started.push(i);
      await check.promise;
      return i;
    }, () => 'failed'));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(queue.hasRoom).toBe(false);
    expect(queue.stateOf('u0')).toEqual({ state: 'running', fileName: 'f0.csv' });
    expect(queue.stateOf('u2')).toEqual({ state: 'waiting', ahead: 2, fileName: 'f2.csv' });
    expect(queue.stateOf('u3')).toEqual({ state: 'waiting', ahead: 3, fileName: 'f3.csv' });
    checks[1]!.release();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    expect(queue.stateOf('u3')).toEqual({ state: 'waiting', ahead: 2, fileName: 'f3.csv' });
    expect(queue.stateOf('u1')).toBeUndefined();
    for (const check of checks) check.release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(queue.hasRoom).toBe(true);
  });

  it('remembers a check that failed, with what its page says', async () => {
    const queue = new CheckQueue(1);
    await expect(queue.run({ id: 'bad', fileName: 'bad.csv' }, () => Promise.reject(new Error('boom')), () => 'could not be checked')).rejects.toThrow('boom');
    expect(queue.stateOf('bad')).toEqual({ state: 'failed', message: 'could not be checked', fileName: 'bad.csv' });
    expect(queue.hasRoom).toBe(true);
  });
});

describe('an upload that has to wait its turn', () => {
  let web: TestApp | undefined;
  afterAll(async () => web?.close());

  it('goes to its own page at once, which shows its place in the line and then, once checked, the verdict', async () => {
    const queue = new CheckQueue(1);
    const blocker = held();
    const blocking = queue.run({ id: 'other', fileName: 'other.csv' }, () => blocker.promise, () => 'failed');
    web = await startTestApp({ checkQueue: queue });
    const session = await openSession(web.app.url);
    const content = readFileSync(join(SAMPLES, 'orders-with-mistakes.csv'));
    const posted = await request(`${web.app.url}/upload`, {
      method: 'POST',
      headers: { cookie: session.cookie },
      body: uploadForm({ csrf: session.csrf, fileName: 'orders-with-mistakes.csv', content }),
    });
    expect(posted.statusCode).toBe(303);
    await posted.body.dump();
    const page = String(posted.headers.location);
    expect(page).toMatch(/^\/uploads\/[\w-]+$/);

    const waiting = await request(`${web.app.url}${page}`, { headers: { cookie: session.cookie } });
    const text = await waiting.body.text();
    expect(waiting.statusCode).toBe(200);
    expect(text).toContain('Checking orders-with-mistakes.csv');
    expect(text).toContain('1 upload is being checked or waiting ahead of it');
    expect(text).toContain('<meta http-equiv="refresh" content="2">');

    blocker.release();
    await blocking;
    let verdict = '';
    for (let attempt = 0; attempt < 200 && !verdict.includes('invalid'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      verdict = await (await request(`${web.app.url}${page}`, { headers: { cookie: session.cookie } })).body.text();
    }
    expect(verdict).not.toContain('http-equiv="refresh"');
    // 8 with mistakes, and SO-20005 out of stock (the API is asked at check time).
    expect(verdict).toMatch(/9\s*<\/strong>\s*invalid/);
  });
});

describe('a cell corrected in the page, or a mapping chosen', () => {
  let web: TestApp | undefined;
  afterAll(async () => web?.close());

  it('has the upload checked again in its turn in the line, not beside the checks running', async () => {
    const queue = new CheckQueue(1);
    web = await startTestApp({ checkQueue: queue });
    const session = await openSession(web.app.url);
    const content = readFileSync(join(SAMPLES, 'orders-with-mistakes.csv'));
    const posted = await request(`${web.app.url}/upload`, { method: 'POST', headers: { cookie: session.cookie }, body: uploadForm({ csrf: session.csrf, fileName: 'orders-with-mistakes.csv', content }) });
    await posted.body.dump();
    const page = String(posted.headers.location);
    const id = page.split('/').at(-1)!;

    const blocker = held();
    const blocking = queue.run({ id: 'other', fileName: 'other.csv' }, () => blocker.promise, () => 'failed');
    const correcting = request(`${web.app.url}${page}/cells`, {
      method: 'POST',
      body: JSON.stringify({ row: 2, col: 0, value: 'SO-EDITED' }),
      headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/json', 'x-csrf-token': session.csrf },
    });
    let state = queue.stateOf(id);
    for (let attempt = 0; attempt < 200 && state === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = queue.stateOf(id);
    }
    expect(state).toEqual({ state: 'waiting', ahead: 1, fileName: 'orders-with-mistakes.csv' });

    blocker.release();
    await blocking;
    const corrected = await correcting;
    expect(corrected.statusCode).toBe(200);
    expect(await corrected.body.json()).toMatchObject({ counts: expect.objectContaining({ orders: expect.any(Number) }) });
    expect(queue.stateOf(id)).toBeUndefined();
  });
});
