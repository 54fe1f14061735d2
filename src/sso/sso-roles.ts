/**
 * Who a company login is in order-batch (PRODUCT.md section 9, single sign-on): the account named by
 * the verified e-mail, and the role its groups map to. Plain functions from claims to decisions.
 */
import { checkUserName } from '../accounts/names.js';
import { ROLES, type Role } from '../accounts/roles.js';

/** `none`: people without an account and without a mapped group are refused. */
export type SsoDefaultRole = 'viewer' | 'operator' | 'none';

export type SsoIdentity = { ok: true; name: string; groups: string[] } | { ok: false; reason: string };

/**
 * The account name a verified e-mail claim stands for (account names may be e-mail addresses). An
 * unverified or missing e-mail is refused: anyone can type any address at some providers.
 */
export function readSsoIdentity(claims: Record<string, unknown>): SsoIdentity {
  const email = claims.email;
  if (typeof email !== 'string' || email === '') return { ok: false, reason: 'the company login gave no e-mail address' };
  if (claims.email_verified !== true) return { ok: false, reason: `the company login has not verified the e-mail address ${email}` };
  const checked = checkUserName(email);
  if (!checked.ok) return { ok: false, reason: `the e-mail address ${email} cannot be an account name` };
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((group): group is string => typeof group === 'string') : [];
  return { ok: true, name: checked.name, groups };
}

/** The highest role the groups map to, else the default; null: refused (`none` and no mapped group). */
export function resolveSsoRole(groups: readonly string[], groupRoles: Readonly<Record<string, Role>>, defaultRole: SsoDefaultRole): Role | null {
  const mapped = groups.map((group) => groupRoles[group]).filter((role): role is Role => role !== undefined);
  if (mapped.length === 0) return defaultRole === 'none' ? null : defaultRole;
  return mapped.reduce((best, role) => (ROLES.indexOf(role) > ROLES.indexOf(best) ? role : best));
}
