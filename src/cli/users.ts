/**
 * `order-batch users add|list|set-role|set-email|disable|enable|remove|password`: the web app's accounts,
 * kept in the ledger (PRODUCT.md section 8). Each change is recorded in the audit trail under the
 * operating-system user who made it.
 */
import type { Command } from 'commander';
import type { Actor, AccountChange } from '../accounts/manage.js';
import { isRole, ROLES, type Role } from '../accounts/roles.js';
import { UsageError } from '../errors.js';
import type { Ledger } from '../ledger/index.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, resolveFlags } from './command-options.js';
import { readPassword } from './read-password.js';

interface UsersFlags extends RawFlags {
  role?: string;
  email?: string;
  remove?: boolean;
  passwordFile?: string;
  force?: boolean;
}

const FORCE_HELP =
  'also for the last active admin: nobody can then manage accounts in the web app, and once no account is left a server others can reach refuses every page until one is added';

function parseRole(text: string | undefined): Role {
  if (text === undefined) throw new UsageError(`Give the account a role: --role ${ROLES.join('|')}.`);
  const role = text.trim().toLowerCase();
  if (!isRole(role)) throw new UsageError(`--role takes ${ROLES.join(', ')}, not "${text}".`);
  return role;
}

export async function withLedger<T>(flags: RawFlags, work: (ledger: Ledger, actor: Actor) => Promise<T>): Promise<T> {
  const options = resolveFlags(flags);
  const [{ openLedger }, { osActor }] = await Promise.all([import('../ledger/index.js'), import('../accounts/os-user.js')]);
  const ledger = await openLedger(options.ledgerPath, { logger: loggerFor(options) });
  try {
    return await work(ledger, osActor());
  } finally {
    await ledger.close();
  }
}

/** What `read` lists from the ledger, or nothing when there is no ledger yet: listing never makes one. */
export async function listFromLedger<T>(flags: RawFlags, read: (ledger: Ledger) => Promise<T[]>): Promise<T[]> {
  const { ledgerExists } = await import('../ledger/index.js');
  return ledgerExists(resolveFlags(flags).ledgerPath) ? withLedger(flags, read) : [];
}

/** Applies one change; a refused change is a usage error (exit 2) with its reason. */
async function change(run: CliRun, flags: UsersFlags, account: AccountChange): Promise<void> {
  const { changeAccount } = await import('../accounts/manage.js');
  const result = await withLedger(flags, (ledger, actor) => changeAccount(ledger, actor, account, { force: flags.force ?? false }));
  if (!result.ok) throw new UsageError(result.message);
  run.printLine(result.message);
}

export function ledgerOptions(command: Command): Command {
  return command
    .option('--ledger <path|url>', 'the ledger the web app uses (default .order-batch/ledger.db)')
    .option('--sandbox', 'the accounts of `serve --sandbox`, kept in the sandbox ledger')
    .option('--config <file>', 'JSON config file (its ledger key)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent');
}

export function addUsersCommand(program: Command, run: CliRun): void {
  const users = program.command('users').description("the web app's accounts: viewer, operator, admin (see `users add --help`)");
  ledgerOptions(
    users
      .command('add <name>')
      .description('add an account; the password is read from standard input (typed twice at a terminal, never shown) or --password-file')
      .option('--role <role>', `${ROLES.join(', ')}: viewer checks and reads, operator also submits, admin also manages accounts`)
      .option('--password-file <file>', 'read the password from the first line of this file')
      .option('--email <address>', "the person's e-mail address: their company login (single sign-on) opens this account"),
  ).action(async (name: string, flags: UsersFlags) => {
    const role = parseRole(flags.role);
    const password = await readPassword({ name, ...(flags.passwordFile !== undefined ? { file: flags.passwordFile } : {}) });
    await change(run, flags, { kind: 'add', name, role, password, ...(flags.email !== undefined ? { email: flags.email } : {}) });
  });
  ledgerOptions(
    users
      .command('set-email <name> [address]')
      .description("set an account's e-mail address, matched against a company login's verified e-mail (one account per address)")
      .option('--remove', 'remove the address instead'),
  ).action(async (name: string, address: string | undefined, flags: UsersFlags) => {
    if ((address === undefined) === !flags.remove) throw new UsageError('Give the e-mail address, or --remove to remove the one the account has.');
    await change(run, flags, { kind: 'email', name, email: address ?? null });
  });
  ledgerOptions(users.command('list').description('list the accounts, their roles and whether they are disabled').option('--json', 'print them as JSON')).action(
    async (flags: RawFlags) => {
      const options = resolveFlags(flags);
      const accounts = await listFromLedger(flags, (ledger) => ledger.users.list());
      if (options.json) return run.printJson({ command: 'users list', users: accounts });
      if (accounts.length === 0) return run.printLine('No accounts yet: the web app serves this computer only, without logging in. Add one with: order-batch users add <name> --role admin');
      const width = Math.max(...accounts.map((a) => a.name.length), 4);
      run.printLine(`${'name'.padEnd(width)}  role      state     since       e-mail`);
      for (const a of accounts) run.printLine(`${a.name.padEnd(width)}  ${a.role.padEnd(8)}  ${(a.isDisabled ? 'disabled' : 'active').padEnd(8)}  ${a.createdAt.slice(0, 10)}  ${a.email ?? ''}`.trimEnd());
    },
  );
  ledgerOptions(users.command('set-role <name> <role>').description(`change an account's role (${ROLES.join(', ')})`).option('--force', FORCE_HELP)).action(
    async (name: string, role: string, flags: UsersFlags) => change(run, flags, { kind: 'role', name, role: parseRole(role) }),
  );
  ledgerOptions(users.command('disable <name>').description('disable an account: its sessions end at once, on every instance').option('--force', FORCE_HELP)).action(
    async (name: string, flags: UsersFlags) => change(run, flags, { kind: 'disable', name }),
  );
  ledgerOptions(users.command('enable <name>').description('enable a disabled account again')).action(async (name: string, flags: RawFlags) => change(run, flags, { kind: 'enable', name }));
  ledgerOptions(users.command('remove <name>').description('remove an account (the audit trail keeps what it did)').option('--force', FORCE_HELP)).action(
    async (name: string, flags: UsersFlags) => change(run, flags, { kind: 'remove', name }),
  );
  ledgerOptions(
    users
      .command('password <name>')
      .description("set an account's password (read as for users add); its sessions end")
      .option('--password-file <file>', 'read the password from the first line of this file'),
  ).action(async (name: string, flags: UsersFlags) => {
    const password = await readPassword({ name, ...(flags.passwordFile !== undefined ? { file: flags.passwordFile } : {}) });
    await change(run, flags, { kind: 'password', name, password });
  });
}
