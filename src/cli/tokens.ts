/**
 * `order-batch tokens create|list|revoke`: the HTTP API's bearer tokens, kept in the ledger (hashed)
 * and acting with their account's role. `create` prints the token alone on stdout, once; the
 * sentence about it goes to stderr, so `TOKEN=$(order-batch tokens create ...)` holds the token only.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { resolveFlags } from './command-options.js';
import { ledgerOptions, listFromLedger, withLedger } from './users.js';

interface TokenFlags extends RawFlags {
  user?: string;
  name?: string;
  expires?: string;
}

export function addTokensCommand(program: Command, run: CliRun): void {
  const tokens = program.command('tokens').description('bearer tokens for the HTTP API (/api/v1), each acting with its account\'s role');
  ledgerOptions(
    tokens
      .command('create')
      .description('make a token for an account; it is printed once, alone on stdout, and only its hash is kept')
      .option('--user <name>', 'the account the token acts for (its role applies)')
      .option('--name <label>', 'a label to list and revoke it by, e.g. erp-import')
      .option('--expires <duration>', 'an end: days or hours from now, e.g. 90d or 12h (default: none)'),
  ).action(async (flags: TokenFlags) => {
    if (!flags.user) throw new UsageError('Name the account the token acts for: --user <name>.');
    if (!flags.name) throw new UsageError('Give the token a label: --name <label> (e.g. --name erp-import).');
    const { createToken } = await import('../accounts/tokens.js');
    const result = await withLedger(flags, (ledger, actor) =>
      createToken(ledger, actor, { userName: flags.user!, label: flags.name!, ...(flags.expires !== undefined ? { expires: flags.expires } : {}) }, new Date()),
    );
    if (!result.ok) throw new UsageError(result.message);
    run.printLine(result.value.token);
    run.warn(`${result.message} It is shown this once; keep it where the other system reads its secrets.`);
  });
  ledgerOptions(tokens.command('list').description('list the tokens (labels, accounts, ends, last use; never the tokens)').option('--json', 'print them as JSON')).action(
    async (flags: RawFlags) => {
      const { isExpired } = await import('../accounts/tokens.js');
      const options = resolveFlags(flags);
      const list = await listFromLedger(flags, (ledger) => ledger.tokens.list());
      if (options.json) return run.printJson({ command: 'tokens list', tokens: list });
      if (list.length === 0) return run.printLine('No API tokens. Make one with: order-batch tokens create --user <name> --name <label>');
      const width = Math.max(...list.map((t) => t.label.length), 5);
      const userWidth = Math.max(...list.map((t) => t.userName.length), 7);
      const now = new Date();
      run.printLine(`${'label'.padEnd(width)}  ${'account'.padEnd(userWidth)}  ${'expires'.padEnd(10)}  last used`);
      for (const t of list) {
        const ends = t.expiresAt ? (isExpired(t, now) ? 'expired' : t.expiresAt.slice(0, 10)) : 'never';
        run.printLine(`${t.label.padEnd(width)}  ${t.userName.padEnd(userWidth)}  ${ends.padEnd(10)}  ${t.lastUsedAt ? t.lastUsedAt.slice(0, 16).replace('T', ' ') : 'never'}`);
      }
    },
  );
  ledgerOptions(tokens.command('revoke <label>').description('revoke a token: every instance refuses it from its next request')).action(async (label: string, flags: RawFlags) => {
    const { revokeToken } = await import('../accounts/tokens.js');
    const result = await withLedger(flags, (ledger, actor) => revokeToken(ledger, actor, label));
    if (!result.ok) throw new UsageError(result.message);
    run.printLine(result.message);
  });
}
