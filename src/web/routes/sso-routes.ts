/**
 * The company login in the web app, installed at start when an issuer is configured.
 * GET /login/oidc (leave for the company login) and GET /login/oidc/callback (come back). What one
 * login keeps between the two (state, nonce, PKCE verifier, where to go next) is stored in the
 * ledger's sessions under a random id, so any instance can finish it, and used once. The browser
 * holds that id in a SameSite=Lax cookie: the session's own cookie is Strict, so a browser coming
 * back from another site would not send it.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newCsrfToken, safeNext } from '../auth/access.js';
import { html } from '../html.js';
import { layout } from '../pages/layout.js';
import type { CompanyLogin } from '../pages/login-page.js';
import { recordAudit, sendError, sendHtml, type AppServices } from '../services.js';
import { createOidcLogin, type OidcLogin, type PendingOidcLogin } from '../../sso/oidc-login.js';
import { openSsoAccount } from '../../sso/sso-account.js';
import { readSsoIdentity } from '../../sso/sso-roles.js';
import type { SsoSettings } from '../../sso/sso-settings.js';

export interface LoginChoices {
  /** The company login as the login page shows it, or null without one. */
  describe(): CompanyLogin;
}

/** `sessionCookieName`: the session cookie's name, which the pending login's cookie extends (one per port, as it is). */
export function installSso(app: FastifyInstance, services: AppServices, sessionCookieName: string): LoginChoices {
  const settings = services.options.oidc;
  if (!settings) return { describe: () => null };
  const login = createOidcLogin({ issuer: settings.issuer, clientId: settings.clientId, clientSecret: settings.clientSecret, logger: services.logger, ...(services.options.clock ? { clock: services.options.clock } : {}) });
  registerSsoRoutes(app, services, { login, settings, cookieName: `${sessionCookieName}_oidc` });
  // Discovered at start, so the login page can say at once when the issuer cannot be reached.
  void login.prepare();
  return { describe: () => ({ isOnly: settings.isOnly, unavailable: login.unavailableReason() }) };
}

export const SSO_CALLBACK_PATH = '/login/oidc/callback';
/** A person has this long at the company login before coming back. */
const PENDING_MS = 10 * 60_000;

export function registerSsoRoutes(app: FastifyInstance, services: AppServices, sso: { login: OidcLogin; settings: SsoSettings; cookieName: string }): void {
  const sessions = services.ledger.sessions;
  const refuse = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) => sendError(services, request, reply, status, 'Company login refused', message);

  app.get<{ Querystring: { next?: string } }>('/login/oidc', { config: { access: 'public' } }, async (request, reply) => {
    const redirectUri = `${request.protocol}://${request.host}${SSO_CALLBACK_PATH}`;
    const started = await sso.login.start(redirectUri);
    if (!started.ok) return sendError(services, request, reply, 503, 'Company login unavailable', `The company login is unavailable: ${started.reason}. Log in with a password, or try again in a minute.`);
    const id = randomBytes(32).toString('base64url');
    await sessions.save(`oidc:${id}`, { userName: null, data: { oidc: { ...started.pending, next: safeNext(request.query.next) } }, address: request.ip });
    reply.setCookie(sso.cookieName, id, { path: SSO_CALLBACK_PATH, httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', maxAge: PENDING_MS / 1000 });
    return reply.header('cache-control', 'no-store').redirect(started.url, 303);
  });

  app.get(SSO_CALLBACK_PATH, { config: { access: 'public' } }, async (request, reply) => {
    const id = request.cookies[sso.cookieName];
    reply.clearCookie(sso.cookieName, { path: SSO_CALLBACK_PATH });
    const record = id ? await sessions.load(`oidc:${id}`, PENDING_MS) : null;
    if (id) await sessions.remove(`oidc:${id}`);
    const pending = record?.data.oidc as (PendingOidcLogin & { next: string }) | undefined;
    if (!pending) return refuse(request, reply, 400, 'This company login was already used or took too long. Start again from the login page.');
    let claims: Record<string, unknown>;
    try {
      claims = await sso.login.finish(new URL(request.url, pending.redirectUri), pending);
    } catch (error) {
      const why = describeRefusal(error);
      await recordAudit(services, request, { action: 'login_refused', actor: '(company login)', detail: `company login: ${why}` });
      return refuse(request, reply, 401, `The company login could not be checked (${why}). Start again from the login page.`);
    }
    const identity = readSsoIdentity(claims);
    if (!identity.ok) {
      await recordAudit(services, request, { action: 'login_refused', actor: '(company login)', detail: `company login: ${identity.reason}` });
      return refuse(request, reply, 403, `${capitalize(identity.reason)}: ask your company's administrator.`);
    }
    const opened = await openSsoAccount(services.ledger.users, identity, sso.settings, (event) => recordAudit(services, request, event));
    if (!opened.ok) {
      await recordAudit(services, request, { action: 'login_refused', actor: opened.actor, detail: `company login: ${opened.why}` });
      return refuse(request, reply, 403, opened.message);
    }
    const { user } = opened;
    await request.session.regenerate();
    request.session.user = user.name;
    request.session.csrf = newCsrfToken();
    request.session.address = request.ip;
    await recordAudit(services, request, { action: 'login_sso', actor: user.name });
    // A page, not a redirect: the browser arrived from the company's site, and the Strict session cookie is sent only on a navigation this site starts.
    const body = html`<div class="login"><h1>Signed in</h1><p><a class="button button-primary" id="continue" href="${pending.next}">Continue</a></p></div>`;
    return sendHtml(reply.header('refresh', `0; url=${pending.next}`), layout({ title: 'Signed in', section: 'none', ctx: services.pageContext(request), body }));
  });
}

function describeRefusal(error: unknown): string {
  const err = error as { message?: string; error?: string; cause?: { message?: string } };
  if (err.error) return `the company refused the code: ${err.error}`;
  return [err.message, err.cause?.message].filter(Boolean).join(': ') || 'unknown reason';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
