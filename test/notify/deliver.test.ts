import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { notifyRun, type NotifySettings } from '../../src/notify/notify-run.js';
import { parseNotifyTarget } from '../../src/notify/targets.js';
import type { JsonReport } from '../../src/run-report/json.js';
import { hang, json, startTestServer, type TestServer } from '../support/test-server.js';

const SECRET = 'webhook-secret-for-tests';

function reportWithFailures(): JsonReport {
  return {
    command: 'import',
    input: [{ file: 'orders.csv', sha256: 'ab', rows: 3, orders: 3 }],
    summary: { accepted: 1, invalid: 1, rejected: 1 },
    orders: [
      { customerOrderId: 'SO-1', file: 'orders.csv', rows: [2], status: 'accepted', issues: [] },
      { customerOrderId: 'SO-2', file: 'orders.csv', rows: [3], status: 'invalid', issues: [{ row: 3, column: 'email', code: 'invalid_email', severity: 'error', message: 'The e-mail "sam@example" is not an e-mail address.' }] },
      { customerOrderId: 'SO-3', file: 'orders.csv', rows: [4], status: 'rejected', issues: [{ row: 4, column: 'productId', code: 'unknown_product', severity: 'error', message: 'The API does not know product PRD-9.' }] },
    ],
    output: 'orders.import-result.xlsx',
  };
}

function settingsFor(url: string, on: NotifySettings['on'] = 'problems'): NotifySettings {
  return { targets: [parseNotifyTarget(url)], on, webhookSecret: SECRET };
}

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function receiver(): Promise<TestServer> {
  const server = await startTestServer();
  servers.push(server);
  return server;
}

describe('webhook notifications', () => {
  it('posts the run once, signed with an HMAC of the exact body, with counts and problems but no cell values', async () => {
    const server = await receiver();
    server.route('POST', '/hook', json(200, {}));
    const outcome = await notifyRun({ settings: settingsFor(`${server.url}/hook`), facts: { command: 'import', runId: 'run-1', exitCode: 1, report: reportWithFailures() }, logger: silentLogger });
    expect(outcome.failed).toEqual([]);
    const [request] = server.requestsTo('POST', '/hook');
    expect(server.requestsTo('POST', '/hook')).toHaveLength(1);
    const expected = `sha256=${createHmac('sha256', SECRET).update(request!.text).digest('hex')}`;
    expect(request!.headers['x-order-batch-signature']).toBe(expected);
    const body = JSON.parse(request!.text);
    expect(body).toMatchObject({ event: 'run.finished', command: 'import', runId: 'run-1', exitCode: 1, summary: { accepted: 1, invalid: 1, rejected: 1 }, files: ['orders.import-result.xlsx'] });
    expect(body.problems).toEqual([
      { file: 'orders.csv', row: 3, order: 'SO-2', field: 'email', code: 'invalid_email', message: 'The e-mail (value) is not an e-mail address.' },
      { file: 'orders.csv', row: 4, order: 'SO-3', field: 'productId', code: 'unknown_product', message: 'The API does not know product PRD-9.' },
    ]);
    expect(body.text).toContain('1 rejected');
    expect(request!.text).not.toContain('sam@example');
  });

  it('says nothing about a clean run unless asked to always notify', async () => {
    const server = await receiver();
    server.route('POST', '/hook', json(200, {}));
    const clean: JsonReport = { command: 'import', input: [], summary: { accepted: 2 }, orders: [], output: null };
    await notifyRun({ settings: settingsFor(`${server.url}/hook`), facts: { command: 'import', runId: null, exitCode: 0, report: clean }, logger: silentLogger });
    expect(server.requestsTo('POST', '/hook')).toHaveLength(0);
    await notifyRun({ settings: settingsFor(`${server.url}/hook`, 'always'), facts: { command: 'import', runId: null, exitCode: 0, report: clean }, logger: silentLogger });
    expect(server.requestsTo('POST', '/hook')).toHaveLength(1);
  });

  it('gets the notification to a receiver that was down for the first tries', async () => {
    // A port nobody listens on yet: the first tries are refused, then the receiver starts there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const received: string[] = [];
    const late = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        received.push(text);
        res.end('ok');
      });
    });
    let sleeps = 0;
    const sleep = async () => {
      if (++sleeps === 2) await new Promise<void>((resolve) => late.listen(port, '127.0.0.1', resolve));
    };
    try {
      const outcome = await notifyRun({
        settings: settingsFor(`http://127.0.0.1:${port}/hook`),
        facts: { command: 'import', runId: 'r', exitCode: 1, report: reportWithFailures() },
        logger: silentLogger,
        delivery: { sleep, boundMs: 30_000 },
      });
      expect(outcome.failed).toEqual([]);
      expect(sleeps).toBe(2);
      expect(received).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => late.close(() => resolve()));
    }
  });

  it('gives up on a receiver that never answers once the bound has passed, and hands the failure on', async () => {
    const server = await receiver();
    server.route('POST', '/hook', hang());
    const failures: string[] = [];
    const outcome = await notifyRun({
      settings: settingsFor(`${server.url}/hook`),
      facts: { command: 'import', runId: 'r', exitCode: 1, report: reportWithFailures() },
      logger: silentLogger,
      delivery: { boundMs: 200 },
      onFailure: (failure) => void failures.push(`${failure.target}: ${failure.reason}`),
    });
    expect(outcome.delivered).toEqual([]);
    expect(failures).toEqual([`webhook ${new URL(server.url).host}: no answer within 200 ms`]);
  });

  it('does not retry a receiver that refuses the notification for good', async () => {
    const server = await receiver();
    server.route('POST', '/hook', json(404, {}));
    const outcome = await notifyRun({ settings: settingsFor(`${server.url}/hook`), facts: { command: 'import', runId: 'r', exitCode: 1, report: reportWithFailures() }, logger: silentLogger });
    expect(outcome.failed).toEqual([{ target: `webhook ${new URL(server.url).host}`, reason: 'the receiver answered 404' }]);
    expect(server.requestsTo('POST', '/hook')).toHaveLength(1);
  });
});

describe('notification targets', () => {
  it('takes mail addresses and https webhooks, and plain http only to this computer', () => {
    expect(parseNotifyTarget('mailto:a@example.com,b@example.com')).toEqual({ kind: 'mail', to: ['a@example.com', 'b@example.com'] });
    expect(parseNotifyTarget('https://hooks.example.com/x')).toEqual({ kind: 'webhook', url: 'https://hooks.example.com/x' });
    expect(parseNotifyTarget('http://127.0.0.1:8080/x').kind).toBe('webhook');
    expect(() => parseNotifyTarget('http://hooks.example.com/x')).toThrow(/only allowed to this computer/);
    expect(() => parseNotifyTarget('mailto:nobody')).toThrow(/mailto:/);
    expect(() => parseNotifyTarget('ftp://x')).toThrow(/https/);
  });
});
