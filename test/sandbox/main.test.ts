import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { runSandbox } from '../../src/sandbox/main.js';

describe('order-batch sandbox (runSandbox)', () => {
  it('prints "listening <url>" first, then the credentials of both clients, and answers at once', async () => {
    const lines: string[] = [];
    const sandbox = await runSandbox({ print: (l) => lines.push(l), clientId: 'demo', clientSecret: 'demo-secret' });
    try {
      expect(lines[0]).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+$/);
      expect(lines.slice(1, 5)).toEqual([
        'client id: demo',
        'client secret: demo-secret',
        'read-only client id: sandbox-reader',
        'read-only client secret: sandbox-reader-secret',
      ]);
      const url = lines[0]!.slice('listening '.length);
      const res = await request(`${url}/sandbox/clock`);
      expect(res.statusCode).toBe(200);
      await res.body.text();
    } finally {
      await sandbox.close();
    }
  });

  it('refuses bad start options with a usage error, not a stack trace', async () => {
    const print = () => undefined;
    await expect(runSandbox({ print, port: 70000 })).rejects.toThrow(/port/);
    await expect(runSandbox({ print, faultRate: 2 })).rejects.toThrow(/fault rate/);
    await expect(runSandbox({ print, tokenTtlSeconds: 0 })).rejects.toThrow(/TTL/);
    await expect(runSandbox({ print, startTime: 'soon' })).rejects.toThrow(/start time/);
    await expect(runSandbox({ print, inventoryPath: '/nonexistent/inventory.json' })).rejects.toThrow(/inventory file/);
  });
});
