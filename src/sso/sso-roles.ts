/**
 * Who a company login is in order-batch (PRODUCT.md section 9, single sign-on): the verified e-mail,
 * and the role its groups map to. Plain functions from claims to decisions.
 */
import { checkEmail, checkUserName } from '../accounts/names.js';
import { ROLES, type Role } from '../accounts/roles.js';

/** `none`: people without an account and without a mapped group are refused. */
export type SsoDefaultRole = 'viewer' | 'operator' | 'none';

export type SsoIdentity = { ok: true; email: string; groups: string[] } | { ok: false; reason: string };

/**
 * Who the company login says the person is: the verified e-mail claim (in lower case) and the
 * groups. An unverified or missing e-mail is refused: anyone can type any address at some providers.
 */
export function readSsoIdentity(claims: Record<string, unknown>): SsoIdentity {
  const email = claims.email;
  if (typeof email !== 'string' || email === '') return { ok: false, reason: 'the company login gave no e-mail address' };
  if (claims.email_verified !== true) return { ok: false, reason: `the company login has not verified the e-mail address ${email}` };
  const checked = checkEmail(email);
  if (!checked.ok) return { ok: false, reason: `the company login's e-mail ${email} is not an e-mail address` };
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((group): group is string => typeof group === 'string') : [];
  return { ok: true, email: checked.email, groups };
}

/** The name of an account made at a first company login: the e-mail, when it can be an account name. */
export function newAccountNameOf(email: string): string | null {
  const checked = checkUserName(email);
  return checked.ok ? checked.name : null;
}

/** The highest role the groups map to, else the default; null: refused (`none` and no mapped group). */
export function resolveSsoRole(groups: readonly string[], groupRoles: Readonly<Record<string, Role>>, defaultRole: SsoDefaultRole): Role | null {
  const mapped = groups.map((group) => groupRoles[group]).filter((role): role is Role => role !== undefined);
  if (mapped.length === 0) return defaultRole === 'none' ? null : defaultRole;
  return mapped.reduce((best, role) => (ROLES.indexOf(role) > ROLES.indexOf(best) ? role : best));
}
