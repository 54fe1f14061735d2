/** `order-batch serve` as run from a shell: where it listens, whether it needs accounts, and saying so. */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { runCli, tempDir } from './run-cli.js';

describe('order-batch serve', () => {
  let serve: ServeProcess | undefined;
  afterEach(async () => {
    await serve?.stop();
    serve = undefined;
  });

  it('refuses to listen beyond this computer without an account, and names the command that adds one', async () => {
    const result = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/serve --host 0\.0\.0\.0 lets other computers reach the web app, so it needs accounts, and the ledger \.order-batch\/ledger\.db has none\. Add one first \(the password is read from standard input\): order-batch users add <name> --role admin/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('says it serves this computer without logging in when there is no account', async () => {
    serve = await startServeProcess([], { cwd: tempDir() });
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await request(`${serve.url}/`)).statusCode).toBe(200);
    expect(await linesOf(serve)).toContain('No accounts are defined, so the web app serves this computer only, to whoever uses it, without logging in. To require logins: order-batch users add <name> --role admin');
  });

  it('listens on every interface once an account exists, prints that address, and asks for a login', async () => {
    const cwd = tempDir();
    expect((await runCli(['users', 'add', 'ada', '--role', 'admin'], { cwd, input: 'admin password 1\n' })).code).toBe(0);
    serve = await startServeProcess(['--host', '0.0.0.0'], { cwd });
    expect(serve.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const local = serve.url.replace('0.0.0.0', '127.0.0.1');
    const page = await request(`${local}/history`);
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2Fhistory');
    expect(await linesOf(serve)).toContain('Accounts are required: people log in with the accounts of `order-batch users list`.');
  });
});

/** Its stdout once it has said what it had to say at start (three lines). */
async function linesOf(serve: ServeProcess): Promise<string[]> {
  while (serve.stdout().split('\n').length < 4) await new Promise((resolve) => setTimeout(resolve, 20));
  return serve.stdout().split('\n');
}
