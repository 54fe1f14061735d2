/**
 * API tokens, the same for `order-batch tokens` and the web app's accounts page: made, listed and
 * revoked here, each change recorded in the audit trail with who made it.
 *
 * A token is 256 random bits. The ledger keeps its SHA-256, not an argon2 hash as for passwords: a
 * slow, salted hash protects secrets people choose, which are few enough to guess one by one; nobody
 * can guess among 2^256 tokens however fast the hash is, so a stolen ledger gives no token away either
 * way, and a fast hash lets every request look its token up by the hash alone, on every instance.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ApiTokenRecord, Ledger } from '../ledger/index.js';
import type { Actor } from './manage.js';
import { checkUserName } from './names.js';

/** Tokens start with this, so a scanner (or a person) can tell one in a leaked file. */
export const TOKEN_PREFIX = 'obt_';
const TOKEN_PATTERN = /^obt_[A-Za-z0-9_-]{43}$/;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const DURATION = /^(\d{1,5})([dh])$/;

export type TokenResult<T> = { ok: true; value: T; message: string } | { ok: false; reason: 'invalid' | 'exists' | 'missing'; message: string };

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether a bearer value is shaped like a token at all (anything else is refused unread). */
export function isTokenShaped(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}

/** `90d`, `12h`: a lifetime in milliseconds; undefined when the text is not one. */
export function parseLifetime(text: string): number | undefined {
  const match = DURATION.exec(text.trim().toLowerCase());
  if (!match || Number(match[1]) === 0) return undefined;
  return Number(match[1]) * (match[2] === 'd' ? 86_400_000 : 3_600_000);
}

/** Makes a token for the account; the token itself is in the result, once, and nowhere else. */
export async function createToken(
  ledger: Pick<Ledger, 'users' | 'tokens' | 'audit'>,
  actor: Actor,
  request: { userName: string; label: string; expires?: string },
  now: Date,
): Promise<TokenResult<{ token: string; label: string; userName: string; expiresAt: string | null }>> {
  const name = checkUserName(request.userName);
  if (!name.ok) return { ok: false, reason: 'invalid', message: name.message };
  const label = request.label.trim();
  if (!LABEL.test(label)) return { ok: false, reason: 'invalid', message: `"${request.label}" cannot be a token's label: use 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit (e.g. erp-import).` };
  let expiresAt: string | null = null;
  if (request.expires !== undefined && request.expires.trim() !== '') {
    const lifetime = parseLifetime(request.expires);
    if (lifetime === undefined) return { ok: false, reason: 'invalid', message: `--expires takes a number of days or hours, e.g. 90d or 12h, not "${request.expires}".` };
    expiresAt = new Date(now.getTime() + lifetime).toISOString();
  }
  const user = await ledger.users.get(name.name);
  if (!user) return { ok: false, reason: 'missing', message: `There is no account named ${name.name} (order-batch users list shows them).` };
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  if (!(await ledger.tokens.add({ label, userName: user.name, tokenHash: hashToken(token), createdBy: actor.name, expiresAt }))) {
    return { ok: false, reason: 'exists', message: `A token labelled ${label} exists already (order-batch tokens list shows them): choose another label, or revoke that one first.` };
  }
  await ledger.audit.record({ actor: actor.name, via: actor.via, address: actor.address, action: 'token_create', detail: `${label} for ${user.name} (${user.role})${expiresAt ? `, until ${expiresAt}` : ''}` });
  const until = expiresAt ? `until ${expiresAt}` : 'without an end date (revoke it with order-batch tokens revoke)';
  return { ok: true, value: { token, label, userName: user.name, expiresAt }, message: `Created the API token ${label} for ${user.name} (acts as ${articleOf(user.role)} ${user.role}), ${until}.` };
}

export async function revokeToken(ledger: Pick<Ledger, 'tokens' | 'audit'>, actor: Actor, label: string): Promise<TokenResult<string>> {
  const trimmed = label.trim();
  if (!(await ledger.tokens.revoke(trimmed))) return { ok: false, reason: 'missing', message: `There is no API token labelled ${trimmed} (order-batch tokens list shows them).` };
  await ledger.audit.record({ actor: actor.name, via: actor.via, address: actor.address, action: 'token_revoke', detail: trimmed });
  return { ok: true, value: trimmed, message: `Revoked the API token ${trimmed}: it is refused from now on, by every instance.` };
}

/** Whether the token is past its end (listings show it; the ledger refuses it already). */
export function isExpired(token: Pick<ApiTokenRecord, 'expiresAt'>, now: Date): boolean {
  return token.expiresAt !== null && Date.parse(token.expiresAt) <= now.getTime();
}

/** "a viewer", "an operator", "an admin". */
export function articleOf(role: string): 'a' | 'an' {
  return /^[aeiou]/.test(role) ? 'an' : 'a';
}
