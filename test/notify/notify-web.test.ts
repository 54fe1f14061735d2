import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNotifyTarget } from '../../src/notify/targets.js';
import { json, startTestServer, type TestServer } from '../support/test-server.js';
import { openSession, SAMPLES, startTestApp, uploadForm, type TestApp } from '../web/support.js';

describe("the web app's notifications", () => {
  let hooks: TestServer;
  let web: TestApp;
  beforeAll(async () => {
    hooks = await startTestServer();
    hooks.route('POST', '/hook', json(200, {}));
    web = await startTestApp({ notify: { targets: [parseNotifyTarget(`${hooks.url}/hook`)], on: 'always', publicUrl: 'https://orders.example.com' } });
  });
  afterAll(async () => {
    await web.close();
    await hooks.close();
  });

  it('tells the webhook how a submission went, with a link to its page', async () => {
    const session = await openSession(web.app.url);
    const headers = { cookie: session.cookie, origin: web.app.url };
    const uploaded = await request(`${web.app.url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName: 'orders-valid.csv', content: readFileSync(join(SAMPLES, 'orders-valid.csv')) }), headers });
    await uploaded.body.text();
    const upload = String(uploaded.headers.location).split('/').pop()!;
    const submitted = await request(`${web.app.url}/uploads/${upload}/submit`, { method: 'POST', body: `_csrf=${session.csrf}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
    await submitted.body.text();
    const job = String(submitted.headers.location).split('/').pop()!;
    for (let state = ''; state !== 'done'; ) {
      state = ((await (await request(`${web.app.url}/jobs/${job}/progress`, { headers: { ...headers, accept: 'application/json' } })).body.json()) as { state: string }).state;
    }
    // Delivered in the background once the job ends: polled, with a bound on the number of looks.
    for (let looks = 0; hooks.requestsTo('POST', '/hook').length === 0 && looks < 2_000; looks++) await (await request(`${web.app.url}/healthz`)).body.text();
    const [hook] = hooks.requestsTo('POST', '/hook');
    const body = JSON.parse(hook!.text);
    expect(body).toMatchObject({ event: 'run.finished', command: 'import', runId: job, url: `https://orders.example.com/jobs/${job}` });
    expect(body.summary.accepted).toBeGreaterThan(0);
  });
});
