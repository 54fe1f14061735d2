import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SAMPLE_NOW, SAMPLES, tempDir } from '../e2e/run-cli.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { json, startTestServer, type TestServer } from '../support/test-server.js';

let smtp: TestSmtpServer;
let hooks: TestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  hooks = await startTestServer();
  hooks.route('POST', '/hook', json(204, {}));
});
afterAll(async () => {
  await smtp.close();
  await hooks.close();
});

describe('import --notify', () => {
  it('tells each target once how a run with failures went: counts, problems, the workbook attached, a valid signature', async () => {
    const dir = tempDir();
    const result = join(dir, 'result.xlsx');
    const res = await runCli(
      ['import', join(SAMPLES, 'orders-with-mistakes.csv'), '--sandbox', '--now', SAMPLE_NOW, '--ledger', join(dir, 'ledger.db'), '--out', result, '--json',
        '--notify', 'mailto:ops@example.com,lead@example.com', '--notify', `${hooks.url}/hook`, '--public-url', 'https://orders.example.com'],
      { env: { ORDER_BATCH_SMTP_URL: smtp.url, ORDER_BATCH_WEBHOOK_SECRET: 'shh' } },
    );
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout);
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.recipients[0]!.sort()).toEqual(['lead@example.com', 'ops@example.com']);
    const mail = smtp.mails[0]!;
    expect(mail.subject).toContain('order-batch import');
    expect(mail.text).toContain(`${report.summary.invalid} invalid`);
    expect(mail.attachments.map((a) => a.filename)).toEqual(['result.xlsx']);
    const [hook, ...more] = hooks.requestsTo('POST', '/hook');
    expect(more).toHaveLength(0);
    expect(hook!.headers['x-order-batch-signature']).toBe(`sha256=${createHmac('sha256', 'shh').update(hook!.text).digest('hex')}`);
    const body = JSON.parse(hook!.text);
    expect(body.summary).toEqual(report.summary);
    expect(body.exitCode).toBe(1);
    expect(body.url).toMatch(/^https:\/\/orders\.example\.com\//);
    expect(body.problems.length).toBeGreaterThan(0);
    expect(body.problems.length).toBeLessThanOrEqual(20);
    // No buyer's name, address or e-mail from the sheet.
    expect(hook!.text).not.toMatch(/Hannah|Cedar Ln|samuel\.reed/);
    expect(mail.text).not.toMatch(/Hannah|Cedar Ln|samuel\.reed/);
    // The SMTP password never reaches the output.
    expect(res.stderr + res.stdout).not.toContain('secret-password');
  });

  it('keeps the exit code of the run when the notification cannot be delivered, and says so', async () => {
    const dir = tempDir();
    const res = await runCli(
      ['import', join(SAMPLES, 'orders-with-mistakes.csv'), '--sandbox', '--now', SAMPLE_NOW, '--ledger', join(dir, 'ledger.db'), '--out', join(dir, 'r.csv'), '--json', '--notify', 'mailto:ops@example.com'],
      { env: {} },
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('ORDER_BATCH_SMTP_URL is not set');
    const audit = await runCli(['audit', '--ledger', join(dir, 'ledger.db')]);
    expect(audit.stdout).toContain('could not deliver a notification');
  });
});
