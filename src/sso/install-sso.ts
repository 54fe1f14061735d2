/** The web app's hook for the company login: its routes, and what the login page offers. */
import type { FastifyInstance } from 'fastify';
import type { CompanyLogin } from '../web/pages/login-page.js';
import type { AppServices } from '../web/services.js';
import { createOidcLogin } from './oidc-login.js';
import { registerSsoRoutes } from './sso-routes.js';

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
