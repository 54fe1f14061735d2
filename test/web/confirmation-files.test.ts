/**
 * The reconciliation page offers each confirmation file of the run: an Amazon export submitted through
 * the web app, shipped by the embedded sandbox, reconciled; the Amazon flat file downloads with its header.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, type FormData } from 'undici';
import { describe, expect, it } from 'vitest';
import { MARKETPLACE_FIXTURES } from '../mapping/exports-support.js';
import { uploadForm, useAppWithSession } from './support.js';

describe('the confirmation files of a reconciliation in the web app', () => {
  const { web, session } = useAppWithSession();

  const post = (path: string, body: FormData | string) =>
    request(`${web.app.url}${path}`, { method: 'POST', body, headers: { cookie: session.cookie, origin: web.app.url, ...(typeof body === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) } });
  const get = async (path: string) => {
    const response = await request(`${web.app.url}${path}`, { headers: { cookie: session.cookie } });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  };
  const csrf = () => `_csrf=${encodeURIComponent(session.csrf)}`;

  it('lists each file of the run with a link, and downloads only a file the run wrote', async () => {
    const uploaded = await post('/upload', uploadForm({ csrf: session.csrf, fileName: 'amazon-order-report.txt', content: readFileSync(join(MARKETPLACE_FIXTURES, 'amazon-order-report.txt')) }));
    await uploaded.body.text();
    const submitted = await post(`${String(uploaded.headers.location)}/submit`, csrf());
    await submitted.body.text();
    const job = String(submitted.headers.location);
    for (let i = 0; i < 400; i++) {
      const response = await request(`${web.app.url}${job}/progress`, { headers: { cookie: session.cookie, accept: 'application/json' } });
      if (((await response.body.json()) as { state: string }).state === 'done') break;
    }
    for (const hours of [96, 96]) await (await post('/sandbox/advance', `${csrf()}&hours=${hours}`)).body.text();
    await (await post('/reconcile', csrf())).body.text();
    const page = await get('/reconcile');
    const links = [...page.text.matchAll(/href="(\/reconcile\/[A-Za-z0-9_-]{16}\/confirmations\/([^"]+))"/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(links.map(([, name]) => name)).toEqual(['confirmations.csv', 'amazon-shipping-confirmation.txt']);
    const amazon = await get(links[1]![0]);
    expect(amazon.status).toBe(200);
    expect(amazon.headers['content-disposition']).toContain('amazon-shipping-confirmation.txt');
    expect(amazon.text.split('\r\n')[0]).toBe('order-id\torder-item-id\tquantity\tship-date\tcarrier-code\tcarrier-name\ttracking-number\tship-method');
    expect(amazon.text.split('\r\n').filter((l) => l.startsWith('113-')).length).toBeGreaterThan(0);
    expect((await get(links[1]![0].replace('amazon-shipping-confirmation.txt', '..%2Fsnapshot.json'))).status).toBe(404);
  });
});
