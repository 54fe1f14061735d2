/**
 * `order-batch tokens` from a shell, and a revoked token refused at once by every instance: two
 * `serve` processes on one PostgreSQL ledger, the token revoked by the CLI between two requests.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { runCli, tempDir } from './run-cli.js';

const statusOf = async (url: string, token: string) => {
  const response = await request(`${url}/api/v1/runs`, { headers: { authorization: `Bearer ${token}` } });
  await response.body.text();
  return response.statusCode;
};

describe('order-batch tokens', () => {
  it('prints the token alone on stdout, lists tokens without it, and revokes by label', async () => {
    const cwd = tempDir();
    expect((await runCli(['users', 'add', 'olga', '--role', 'operator'], { cwd, input: 'operator password 1\n' })).code).toBe(0);
    const created = await runCli(['tokens', 'create', '--user', 'olga', '--name', 'erp', '--expires', '90d'], { cwd });
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^obt_[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toMatch(/Created the API token erp for olga \(acts as an operator\), until \d{4}-/);
    const token = created.stdout.trim();

    const again = await runCli(['tokens', 'create', '--user', 'olga', '--name', 'erp'], { cwd });
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');

    const listed = await runCli(['tokens', 'list', '--json'], { cwd });
    expect(JSON.parse(listed.stdout)).toMatchObject({ command: 'tokens list', tokens: [{ label: 'erp', userName: 'olga', lastUsedAt: null }] });
    expect(listed.stdout + (await runCli(['tokens', 'list'], { cwd })).stdout).not.toContain(token.slice(4));

    expect((await runCli(['tokens', 'revoke', 'erp'], { cwd })).stdout).toMatch(/Revoked the API token erp/);
    expect((await runCli(['tokens', 'revoke', 'erp'], { cwd })).code).toBe(2);
  });
});

describePostgres('a revoked token on a shared PostgreSQL ledger', () => {
  let db: TestDatabase | undefined;
  const serves: ServeProcess[] = [];
  afterEach(async () => {
    await Promise.all(serves.splice(0).map((s) => s.stop()));
    await db?.drop();
  });

  it('is refused at once by every instance', async () => {
    db = await createDatabase();
    const cwd = tempDir();
    const ledger = ['--ledger', db.url];
    expect((await runCli(['users', 'add', 'olga', '--role', 'operator', ...ledger], { cwd, input: 'operator password 1\n' })).code).toBe(0);
    const token = (await runCli(['tokens', 'create', '--user', 'olga', '--name', 'erp', ...ledger], { cwd })).stdout.trim();
    serves.push(await startServeProcess(ledger, { cwd }), await startServeProcess(ledger, { cwd }));
    for (const serve of serves) expect(await statusOf(serve.url, token)).toBe(200);
    expect((await runCli(['tokens', 'revoke', 'erp', ...ledger], { cwd })).code).toBe(0);
    for (const serve of serves) expect(await statusOf(serve.url, token)).toBe(401);
  });
});
