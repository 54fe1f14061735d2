/** `order-batch users` and `order-batch audit` from the command line, as an admin on the server runs them. */
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { runCli, SAMPLE_NOW, SAMPLES, tempDir } from './run-cli.js';

describe('order-batch users and audit', () => {
  it('adds accounts with a password from standard input or a file, keeps only its hash, and lists them', async () => {
    const cwd = tempDir();
    const added = await runCli(['users', 'add', 'Maria', '--role', 'operator'], { cwd, input: 'correct horse battery\n' });
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toBe('Added the account maria, operator (also submits, cancels and runs reconciliations).\n');
    writeFileSync(join(cwd, 'pw.txt'), 'another long secret\r\nsecond line ignored\n');
    expect((await runCli(['users', 'add', 'li', '--role', 'viewer', '--password-file', 'pw.txt'], { cwd })).code).toBe(0);

    const listed = await runCli(['users', 'list', '--json'], { cwd });
    const users = JSON.parse(listed.stdout).users as Record<string, unknown>[];
    expect(users.map((u) => [u.name, u.role, u.isDisabled])).toEqual([['li', 'viewer', false], ['maria', 'operator', false]]);
    expect(listed.stdout).not.toContain('argon2');

    const ledger = await openLedger(join(cwd, '.order-batch', 'ledger.db'));
    try {
      const stored = await ledger.users.get('li');
      expect(stored!.passwordHash).toMatch(/^\$argon2id\$/);
      expect(stored!.passwordHash).not.toContain('another long secret');
    } finally {
      await ledger.close();
    }
  });

  it("sets an account's e-mail address when adding it or later, one account per address, and removes it", async () => {
    const cwd = tempDir();
    const added = await runCli(['users', 'add', 'mrossi', '--role', 'viewer', '--email', 'Maria.Rossi@Example.com'], { cwd, input: 'correct horse battery\n' });
    expect(added.stdout).toBe('Added the account mrossi, viewer (checks sheets and reads history and reconciliations), e-mail maria.rossi@example.com.\n');
    expect((await runCli(['users', 'add', 'li', '--role', 'viewer'], { cwd, input: 'correct horse battery\n' })).code).toBe(0);
    const taken = await runCli(['users', 'set-email', 'li', 'maria.rossi@example.com'], { cwd });
    expect(taken).toMatchObject({ code: 2, stdout: '' });
    expect(taken.stderr).toContain("The e-mail address maria.rossi@example.com is the account mrossi's already");
    expect((await runCli(['users', 'set-email', 'li', 'not an address'], { cwd })).code).toBe(2);
    expect((await runCli(['users', 'set-email', 'li', 'li@example.com'], { cwd })).stdout).toMatch(/^li's e-mail address is li@example\.com/);
    expect((await runCli(['users', 'list'], { cwd })).stdout).toMatch(/^li .* li@example\.com\nmrossi .* maria\.rossi@example\.com\n$/m);
    expect((await runCli(['users', 'set-email', 'mrossi', '--remove'], { cwd })).code).toBe(0);
    const listed = JSON.parse((await runCli(['users', 'list', '--json'], { cwd })).stdout).users as { name: string; email: string | null }[];
    expect(listed.map((u) => [u.name, u.email])).toEqual([['li', 'li@example.com'], ['mrossi', null]]);
  });

  it('refuses what cannot be an account, in one line with exit code 2, and changes nothing', async () => {
    const cwd = tempDir();
    const cases: [string[], string | undefined, RegExp][] = [
      [['users', 'add', 'li', '--role', 'viewer'], 'short\n', /at least 10 characters/],
      [['users', 'add', 'li', '--role', 'viewer'], '', /No password was given: .*--password-file/],
      [['users', 'add', 'li', '--role', 'boss'], 'long enough password\n', /--role takes viewer, operator, admin, not "boss"/],
      [['users', 'add', 'li li', '--role', 'viewer'], 'long enough password\n', /"li li" cannot be an account name/],
      [['users', 'add', 'li', '--role', 'viewer', '--password-file', 'missing.txt'], undefined, /Cannot read the password file missing\.txt/],
      [['users', 'disable', 'nobody'], undefined, /There is no account named nobody/],
    ];
    for (const [args, input, message] of cases) {
      const result = await runCli(args, { cwd, ...(input !== undefined ? { input } : {}) });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await runCli(['users', 'list', '--json'], { cwd })).stdout).toContain('"users": []');
  });

  it('records every account change and every check under the operating-system user, and prints them newest first', async () => {
    const cwd = tempDir();
    const me = userInfo().username;
    await runCli(['users', 'add', 'maria', '--role', 'viewer'], { cwd, input: 'correct horse battery\n' });
    await runCli(['users', 'set-role', 'maria', 'admin'], { cwd });
    const refused = await runCli(['users', 'disable', 'maria'], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('maria is the last active admin: a team must keep one');
    await runCli(['users', 'disable', 'maria', '--force'], { cwd });
    await runCli(['users', 'password', 'maria'], { cwd, input: 'a brand new password\n' });
    await runCli(['validate', join(SAMPLES, 'orders-valid.csv'), '--out', join(cwd, 'out.xlsx'), '--now', SAMPLE_NOW], { cwd });

    const text = await runCli(['audit'], { cwd });
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ  ${me} \\(cli, .+\\)  validated .*orders-valid\\.csv \\(sha256 [0-9a-f]{12}…\\): \\d+ rows, \\d+ valid$`));
    expect(lines.slice(1).map((l) => l.replace(/^.*\)  /, ''))).toEqual([
      'set a new password for maria',
      'disabled the account maria',
      'changed the role of maria: role viewer -> admin',
      'added the account maria: role viewer',
    ]);
    const json = JSON.parse((await runCli(['audit', '--json', '--user', me, '--since', '1h'], { cwd })).stdout);
    expect(json.entries[0]).toMatchObject({ actor: me, via: 'cli', action: 'validate', fileSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await runCli(['audit', '--until', '2000-01-01'], { cwd })).stdout).toBe('Nothing in the audit trail for this selection.\n');
  });

  it('records an import and a reconcile with the sheet, its sha256 and the orders per status', async () => {
    const cwd = tempDir();
    const me = userInfo().username;
    expect((await runCli(['import', join(SAMPLES, 'orders-valid.csv'), '--sandbox', '--out', join(cwd, 'r.csv'), '--now', SAMPLE_NOW], { cwd })).code).toBe(0);
    await runCli(['reconcile', '--sandbox', '--out', join(cwd, 'rec.xlsx')], { cwd });
    const json = JSON.parse((await runCli(['audit', '--sandbox', '--json'], { cwd })).stdout);
    const [reconciled, imported] = json.entries;
    expect(imported).toMatchObject({ actor: me, via: 'cli', action: 'import', fileName: join(SAMPLES, 'orders-valid.csv'), fileSha256: expect.stringMatching(/^[0-9a-f]{64}$/), ref: expect.any(String) });
    expect(imported.counts.accepted).toBeGreaterThan(0);
    expect(reconciled).toMatchObject({ actor: me, action: 'reconcile', fileName: 'rec.xlsx', detail: expect.stringMatching(/^the \d+ orders? the ledger recorded as sent$/) });
  });

  it('creates no ledger for an offline check where there is none', async () => {
    const cwd = tempDir();
    await runCli(['validate', join(SAMPLES, 'orders-valid.csv'), '--out', join(cwd, 'out.xlsx'), '--now', SAMPLE_NOW], { cwd });
    expect((await runCli(['audit', '--json'], { cwd })).stdout).toContain('"entries": []');
    expect((await runCli(['users', 'list'], { cwd })).stdout).toMatch(/^No accounts yet/);
  });
});
