import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayReadMetrics } from '../../src/metrics/access.js';
import { checkReadiness } from '../../src/metrics/readiness.js';
import { logIn, SAMPLES, startTestApp, submitSheet, type TestApp } from '../web/support.js';

function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(sample?.value ?? sample?.count ?? 0);
}

describe('health and metrics of serve', () => {
  let web: TestApp;
  beforeAll(async () => {
    web = await startTestApp({ accounts: [{ name: 'ada', role: 'admin', password: 'admin password 1' }] });
  });
  afterAll(async () => {
    await web.close();
  });

  it('answers /healthz and /readyz without a session', async () => {
    const health = await request(`${web.app.url}/healthz`);
    expect(health.statusCode).toBe(200);
    expect(await health.body.text()).toBe('ok\n');
    const ready = await request(`${web.app.url}/readyz`);
    expect(ready.statusCode).toBe(200);
    expect(await ready.body.text()).toBe('ready\n');
  });

  it('counts a submission, its orders, its API requests with their latency and a refused login', async () => {
    const before = await (await request(`${web.app.url}/metrics`)).body.text();
    expect(valueOf(before, 'order_batch_runs_total', { command: 'import', outcome: 'ok' })).toBe(0);
    const refused = await request(`${web.app.url}/login`, { method: 'POST', body: 'user=ada&password=wrong', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: web.app.url } });
    await refused.body.text();
    const session = await logIn(web.app.url, 'ada', 'admin password 1');
    await submitSheet(web.app.url, session, 'orders-valid.csv', readFileSync(join(SAMPLES, 'orders-valid.csv')));
    const response = await request(`${web.app.url}/metrics`);
    expect(response.statusCode).toBe(200);
    expect(String(response.headers['content-type'])).toContain('text/plain');
    const text = await response.body.text();
    expect(valueOf(text, 'order_batch_runs_total', { command: 'import', outcome: 'ok' })).toBe(1);
    expect(valueOf(text, 'order_batch_orders_total', { status: 'accepted' })).toBeGreaterThan(0);
    expect(valueOf(text, 'order_batch_api_requests_total', { class: '2xx' })).toBeGreaterThan(0);
    // Every request timed: the histogram's +Inf buckets add up to the requests counted.
    const families = parsePrometheusTextFormat(text);
    const timed = families.find((f) => f.name === 'order_batch_api_request_duration_seconds')!.metrics.reduce((n, m) => n + Number(m.buckets?.['+Inf'] ?? 0), 0);
    const counted = families.find((f) => f.name === 'order_batch_api_requests_total')!.metrics.reduce((n, m) => n + Number(m.value ?? 0), 0);
    expect(timed).toBe(counted);
    expect(valueOf(text, 'order_batch_failed_logins_total')).toBe(1);
    expect(valueOf(text, 'order_batch_jobs', { state: 'queued' })).toBe(0);
    expect(parsePrometheusTextFormat(text).map((f) => f.name)).toEqual(
      expect.arrayContaining(['order_batch_api_retries_total', 'order_batch_ledger_errors_total', 'order_batch_notification_failures_total', 'order_batch_jobs']),
    );
  });
});

describe('who may read /metrics', () => {
  it('lets this computer in, and another only with the bearer token', () => {
    expect(mayReadMetrics({ ip: '127.0.0.1', authorization: undefined }, undefined)).toBe(true);
    expect(mayReadMetrics({ ip: '::ffff:127.0.0.1', authorization: undefined }, undefined)).toBe(true);
    expect(mayReadMetrics({ ip: '10.0.0.7', authorization: undefined }, 'tok')).toBe(false);
    expect(mayReadMetrics({ ip: '10.0.0.7', authorization: 'Bearer tok' }, undefined)).toBe(false);
    expect(mayReadMetrics({ ip: '10.0.0.7', authorization: 'Bearer nope' }, 'tok')).toBe(false);
    expect(mayReadMetrics({ ip: '10.0.0.7', authorization: 'Bearer tok' }, 'tok')).toBe(true);
  });
});

describe('readiness', () => {
  it('is not ready when the ledger fails, is slow, or its schema moved on', async () => {
    expect(await checkReadiness(async () => ({ schemaVersion: '7' }), '7')).toEqual({ isReady: true });
    expect((await checkReadiness(async () => Promise.reject(new Error('connection refused')), '7')).reason).toContain('connection refused');
    expect((await checkReadiness(() => new Promise(() => undefined), '7', 10)).reason).toContain('did not answer');
    expect((await checkReadiness(async () => ({ schemaVersion: '8' }), '7')).reason).toContain('schema is 8');
  });
});
