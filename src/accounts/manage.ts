/**
 * Changing accounts, the same for `order-batch users` and the web app's accounts page: each change
 * is checked, applied, and recorded in the audit trail with who made it.
 */
import type { AuditAction, Ledger, Role } from '../ledger/index.js';
import { checkEmail, checkUserName } from './names.js';
import { checkPasswordRules, hashPassword } from './passwords.js';
import { describeRole } from './roles.js';

/** Who makes a change: an account (web) or the operating-system user (CLI). */
export interface Actor {
  name: string;
  via: 'web' | 'cli';
  address: string | null;
}

export type AccountChange =
  | { kind: 'add'; name: string; role: Role; password: string; email?: string }
  | { kind: 'email'; name: string; email: string | null }
  | { kind: 'role'; name: string; role: Role }
  | { kind: 'disable'; name: string }
  | { kind: 'enable'; name: string }
  | { kind: 'remove'; name: string }
  | { kind: 'password'; name: string; password: string };

export type ChangeResult = { ok: true; name: string; message: string } | { ok: false; reason: 'invalid' | 'exists' | 'missing' | 'self' | 'last-admin'; message: string };

const ACTIONS: Record<AccountChange['kind'], AuditAction> = {
  add: 'user_add',
  role: 'user_role',
  disable: 'user_disable',
  enable: 'user_enable',
  remove: 'user_remove',
  password: 'user_password',
  email: 'user_email',
};

/**
 * Applies the change. `refuseSelf`: the web app keeps an admin from disabling, removing or demoting
 * their own account (a team could lock itself out); the CLI, which anyone with the ledger can run, may.
 * Disabling, removing or demoting the last active admin is refused unless `force`: nobody could
 * manage accounts in the web app any more.
 */
export async function changeAccount(
  ledger: Pick<Ledger, 'users' | 'audit'>,
  actor: Actor,
  change: AccountChange,
  options: { refuseSelf?: boolean; force?: boolean } = {},
): Promise<ChangeResult> {
  const checked = checkUserName(change.name);
  if (!checked.ok) return { ok: false, reason: 'invalid', message: checked.message };
  const name = checked.name;
  if (options.refuseSelf && name === actor.name && change.kind !== 'password' && change.kind !== 'enable' && change.kind !== 'email') {
    return { ok: false, reason: 'self', message: 'You cannot disable, remove or change the role of your own account: ask another admin, or use order-batch users on the server.' };
  }
  if (change.kind === 'add' || change.kind === 'password') {
    const problem = checkPasswordRules(change.password);
    if (problem) return { ok: false, reason: 'invalid', message: problem };
  }
  const email = 'email' in change && change.email ? checkEmail(change.email) : null;
  if (email && !email.ok) return { ok: false, reason: 'invalid', message: email.message };
  const before = await ledger.users.get(name);
  if (change.kind === 'add' && before) return { ok: false, reason: 'exists', message: `An account named ${name} exists already (order-batch users list shows them).` };
  if (change.kind !== 'add' && !before) return { ok: false, reason: 'missing', message: `There is no account named ${name} (order-batch users list shows them).` };
  const isDemoted = change.kind === 'disable' || change.kind === 'remove' || (change.kind === 'role' && change.role !== 'admin');
  if (isDemoted && !options.force && before!.role === 'admin' && !before!.isDisabled && (await countActiveAdmins(ledger)) <= 1) {
    return { ok: false, reason: 'last-admin', message: lastAdminMessage(name, change.kind) };
  }

  if (email?.ok) {
    const holder = await ledger.users.findByEmail(email.email);
    if (holder && holder.name !== name) return { ok: false, reason: 'exists', message: `The e-mail address ${email.email} is the account ${holder.name}'s already: an address belongs to one account.` };
  }

  let message: string;
  let detail: string | null = null;
  switch (change.kind) {
    case 'add':
      if (!(await ledger.users.add({ name, role: change.role, passwordHash: await hashPassword(change.password), email: email?.ok ? email.email : null }))) {
        return { ok: false, reason: 'exists', message: `An account named ${name}, or one with its e-mail address, exists already.` };
      }
      detail = email?.ok ? `role ${change.role}, e-mail ${email.email}` : `role ${change.role}`;
      message = `Added the account ${name}, ${change.role} (${describeRole(change.role)})${email?.ok ? `, e-mail ${email.email}` : ''}.`;
      break;
    case 'email':
      await ledger.users.update(name, { email: email?.ok ? email.email : null });
      detail = email?.ok ? `e-mail ${before!.email ?? 'none'} -> ${email.email}` : `e-mail ${before!.email ?? 'none'} removed`;
      message = email?.ok ? `${name}'s e-mail address is ${email.email}: a company login with it, verified, opens this account.` : `${name} has no e-mail address any more.`;
      break;
    case 'role':
      await ledger.users.update(name, { role: change.role });
      detail = `role ${before!.role} -> ${change.role}`;
      message = `${name} is now ${change.role} (${describeRole(change.role)}).`;
      break;
    case 'disable':
      await ledger.users.update(name, { isDisabled: true });
      message = `Disabled ${name}: their sessions have ended, and they cannot log in until enabled again.`;
      break;
    case 'enable':
      await ledger.users.update(name, { isDisabled: false });
      message = `Enabled ${name}: they can log in again.`;
      break;
    case 'remove':
      await ledger.users.remove(name);
      message = `Removed the account ${name} (the audit trail keeps what they did).`;
      break;
    case 'password':
      await ledger.users.update(name, { passwordHash: await hashPassword(change.password) });
      message = `Set a new password for ${name}: their sessions have ended.`;
      break;
  }
  await ledger.audit.record({ actor: actor.name, via: actor.via, address: actor.address, action: ACTIONS[change.kind], detail: detail ? `${name}: ${detail}` : name });
  return { ok: true, name, message };
}

async function countActiveAdmins(ledger: Pick<Ledger, 'users'>): Promise<number> {
  return (await ledger.users.list()).filter((u) => u.role === 'admin' && !u.isDisabled).length;
}

function lastAdminMessage(name: string, kind: AccountChange['kind']): string {
  const verb = kind === 'remove' ? 'remove' : kind === 'disable' ? 'disable' : 'demote';
  return (
    `${name} is the last active admin: a team must keep one, or nobody can manage accounts in the web app. ` +
    `Add another admin first (order-batch users add <name> --role admin), or give --force to ${verb} ${name} anyway ` +
    `(then a server others can reach refuses every page once no account is left, until one is added with order-batch users add).`
  );
}
