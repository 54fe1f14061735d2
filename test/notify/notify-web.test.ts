import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNotifyTarget } from '../../src/notify/targets.js';
import { json, startTestServer, type TestServer } from '../support/test-server.js';
import { openSession, SAMPLES, startTestApp, submitSheet, type TestApp } from '../web/support.js';

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
    const { job } = await submitSheet(web.app.url, session, 'orders-valid.csv', readFileSync(join(SAMPLES, 'orders-valid.csv')));
    // Delivered in the background once the job ends: polled, with a bound on the number of looks.
    for (let looks = 0; hooks.requestsTo('POST', '/hook').length === 0 && looks < 2_000; looks++) await (await request(`${web.app.url}/healthz`)).body.text();
    const [hook] = hooks.requestsTo('POST', '/hook');
    const body = JSON.parse(hook!.text);
    expect(body).toMatchObject({ event: 'run.finished', command: 'import', runId: job, url: `https://orders.example.com/jobs/${job}` });
    expect(body.summary.accepted).toBeGreaterThan(0);
  });
});
