/**
 * GET /login, POST /login, POST /logout (PRODUCT.md section 8). A refused login says the same for an
 * unknown account, a wrong password and a disabled account (and costs the same time), so the answer
 * never tells which accounts exist; the audit trail records which it was. Failed attempts are
 * limited per address and per account; a success regenerates the session (a session id planted
 * before the login is worth nothing after it).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkUserName } from '../../accounts/names.js';
import { verifyPassword } from '../../accounts/passwords.js';
import { newCsrfToken, safeNext } from '../auth/access.js';
import { renderLoginPage } from '../pages/login-page.js';
import type { LoginChoices } from './sso-routes.js';
import { CSRF_MESSAGE, hasValidCsrf, recordAudit, sendError, sendHtml, type AppServices } from '../services.js';

/** Failed logins allowed in the window, per client address and per account, counted in the ledger across instances. */
export const LOGIN_LIMITS = { perAddress: 20, perAccount: 10, windowMs: 15 * 60_000 };
const REFUSED = 'The account name or the password is wrong (or the account is disabled).';

type LoginBody = { username?: unknown; password?: unknown; next?: unknown } | undefined;

export function registerLoginRoutes(app: FastifyInstance, services: AppServices, choices: LoginChoices = { describe: () => null }): void {
  const byAddress = app.createRateLimit({ max: LOGIN_LIMITS.perAddress, timeWindow: LOGIN_LIMITS.windowMs, keyGenerator: (request) => `address:${request.ip}` });
  const byAccount = app.createRateLimit({
    max: LOGIN_LIMITS.perAccount,
    timeWindow: LOGIN_LIMITS.windowMs,
    keyGenerator: (request) => `account:${accountOf((request.body as LoginBody)?.username)}`,
  });

  const page = (request: FastifyRequest, reply: FastifyReply, status: number, options: { next: string; username?: string; error?: string; notice?: string }) =>
    sendHtml(reply, renderLoginPage(services.pageContext(request), { ...options, company: choices.describe() }), status);

  app.get<{ Querystring: { next?: string } }>('/login', { config: { access: 'public' } }, async (request, reply) => {
    if (!services.hasAccounts()) return reply.redirect('/', 303);
    if (request.visitor) return reply.redirect(safeNext(request.query.next), 303);
    return page(request, reply, 200, { next: safeNext(request.query.next) });
  });

  app.post<{ Body: LoginBody }>('/login', { config: { access: 'public' } }, async (request, reply) => {
    const next = safeNext(request.body?.next);
    if (!services.hasAccounts()) return reply.redirect('/', 303);
    if (choices.describe()?.isOnly) return page(request, reply, 403, { next, error: 'Passwords are not used here: sign in with your company account.' });
    const typed = typeof request.body?.username === 'string' ? request.body.username : '';
    const password = typeof request.body?.password === 'string' ? request.body.password : '';
    const name = accountOf(typed);
    // Counted before the password is judged, in one step of the ledger: parallel attempts cannot
    // all pass the check before any is counted. A login that succeeds is taken back.
    const limits = await Promise.all([byAddress(request), byAccount(request)]);
    const user = name ? await services.ledger.users.get(name) : null;
    const blocked = limits.find((limit) => !limit.isAllowed && limit.isExceeded);
    if (blocked && !blocked.isAllowed) {
      const minutes = Math.max(1, Math.ceil(blocked.ttl / 60_000));
      // Once per window and per address or account: a flood of refused tries is one line of the trail.
      if ((await services.ledger.attempts.count(`noted:${blocked.key}`, LOGIN_LIMITS.windowMs)).count === 1) {
        await recordAudit(services, request, { ...refusedLogin(typed, user !== null), detail: `too many failed attempts ${blocked.key.startsWith('address:') ? 'from this address' : 'for this account'}${user ? '' : `: ${quoted(typed)}`}` });
      }
      return page(request, reply, 429, { next, username: typed, error: `Too many failed logins: wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.` });
    }
    const isMatch = await verifyPassword(user?.passwordHash ?? null, password);
    if (!user || !isMatch || user.isDisabled) {
      const why = !user ? (typed === '' ? 'no account name given' : `unknown account ${quoted(typed)}`) : !isMatch ? 'wrong password' : 'account disabled';
      await recordAudit(services, request, { ...refusedLogin(typed, user !== null), detail: why });
      return page(request, reply, 401, { next, username: typed, error: REFUSED });
    }
    await Promise.all(limits.map((limit) => services.ledger.attempts.forgive(limit.key, LOGIN_LIMITS.windowMs)));
    await request.session.regenerate();
    request.session.user = user.name;
    request.session.csrf = newCsrfToken();
    request.session.address = request.ip;
    await recordAudit(services, request, { action: 'login', actor: user.name });
    return reply.redirect(next, 303);
  });

  app.post<{ Body: Record<string, string> | undefined }>('/logout', async (request, reply) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    if (!request.visitor || request.visitor.isLocal) return reply.redirect('/', 303);
    await recordAudit(services, request, { action: 'logout' });
    await request.session.destroy();
    request.visitor = null;
    return page(request, reply, 200, { next: '/', notice: 'You have logged out.' });
  });
}

/** Longest typed name the audit trail quotes. */
const QUOTED_NAME_CHARS = 40;

/** A refused login's entry: under the account when it exists; else under one "unknown account", the typed name kept in the entry's text only. */
function refusedLogin(typed: string, isKnown: boolean): { action: 'login_refused'; actor: string } {
  return { action: 'login_refused', actor: isKnown ? accountOf(typed) : UNKNOWN_ACCOUNT };
}

export const UNKNOWN_ACCOUNT = '(unknown account)';

function quoted(typed: string): string {
  const flat = typed.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return `"${flat.length > QUOTED_NAME_CHARS ? `${flat.slice(0, QUOTED_NAME_CHARS)}…` : flat}"`;
}

function accountOf(typed: unknown): string {
  if (typeof typed !== 'string') return '';
  const checked = checkUserName(typed);
  return checked.ok ? checked.name : '';
}
