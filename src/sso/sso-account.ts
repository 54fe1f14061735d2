/**
 * The account a company login opens: the one whose e-mail address is the verified e-mail (without
 * case); else the account named by that e-mail (as teams named them before accounts had e-mails),
 * which then records it; else one made at this first login, with the e-mail, as the groups or the
 * default role say. Groups only raise a role: lowering one stays an admin's decision.
 */
import { ROLES, type Role } from '../accounts/roles.js';
import type { AuditEvent, Ledger, StoredUser } from '../ledger/index.js';
import { newAccountNameOf, resolveSsoRole, type SsoDefaultRole } from './sso-roles.js';

/** Stands where a password's hash would be: no password matches it, so the account logs in through the company only. */
export const NO_PASSWORD = '!company-login';

export type SsoAccount = { ok: true; user: StoredUser } | { ok: false; message: string; actor: string; why: string };

type RecordAudit = (event: Pick<AuditEvent, 'action' | 'detail'> & { actor: string }) => Promise<void>;

export async function openSsoAccount(
  users: Ledger['users'],
  identity: { email: string; groups: readonly string[] },
  settings: { groupRoles: Readonly<Record<string, Role>>; defaultRole: SsoDefaultRole },
  record: RecordAudit,
): Promise<SsoAccount> {
  const { email } = identity;
  const mapped = resolveSsoRole(identity.groups, settings.groupRoles, 'none');
  let user = (await users.findByEmail(email)) ?? (await findByName(users, email));
  if (user && user.email !== email) {
    if (user.email !== null) return { ok: false, actor: user.name, why: `the account ${user.name} has another e-mail address`, message: `The account ${user.name} has another e-mail address than ${email}: ask an admin.` };
    await users.update(user.name, { email });
    await record({ action: 'user_email', actor: user.name, detail: `${user.name}: e-mail ${email}, from the company login` });
    user = { ...user, email };
  }
  if (!user) {
    const role = mapped ?? resolveSsoRole([], {}, settings.defaultRole);
    if (!role) return { ok: false, actor: email, why: 'no account here, and new people are not let in', message: `There is no order-batch account for ${email}: ask an admin to add one.` };
    const name = newAccountNameOf(email);
    if (!name) return { ok: false, actor: email, why: 'no account has this e-mail, and it cannot be an account name', message: `No order-batch account has the e-mail address ${email}, and it cannot be an account name: ask an admin to add an account with it.` };
    if (await users.add({ name, role, passwordHash: NO_PASSWORD, email })) await record({ action: 'user_add', actor: name, detail: `${name} as ${role}, at a first company login` });
    user = await users.findByEmail(email);
    if (!user) return { ok: false, actor: email, why: `an account named ${name} exists with another e-mail address`, message: `An account named ${name} exists with another e-mail address: ask an admin.` };
  } else if (mapped && ROLES.indexOf(mapped) > ROLES.indexOf(user.role) && !user.isDisabled) {
    await users.update(user.name, { role: mapped });
    await record({ action: 'user_role', actor: user.name, detail: `${user.name} to ${mapped}, from the company login's groups` });
    user = { ...user, role: mapped };
  }
  if (user.isDisabled) return { ok: false, actor: user.name, why: 'account disabled', message: `The account ${user.name} is disabled: ask an admin.` };
  return { ok: true, user };
}

async function findByName(users: Ledger['users'], email: string): Promise<StoredUser | null> {
  const name = newAccountNameOf(email);
  return name ? users.get(name) : null;
}
