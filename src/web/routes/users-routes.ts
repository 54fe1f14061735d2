/** The accounts page (admins only): the same changes as `order-batch users`, recorded under the admin who made them. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changeAccount, type AccountChange } from '../../accounts/manage.js';
import { verifyPassword } from '../../accounts/passwords.js';
import { isRole } from '../../accounts/roles.js';
import { renderUsersPage } from '../pages/users-page.js';
import { LOGIN_LIMITS } from './login-routes.js';
import { CSRF_MESSAGE, hasValidCsrf, sendError, sendHtml, type AppServices } from '../services.js';

type Form = Record<string, string> | undefined;

/** The accounts page, with the API tokens (and a token just made, shown this once). */
export async function sendUsersPage(services: AppServices, request: FastifyRequest, reply: FastifyReply, status: number, options: { error?: string; notice?: string; created?: { label: string; token: string } } = {}): Promise<FastifyReply> {
  const { created, ...messages } = options;
  const tokens = { tokens: await services.ledger.tokens.list(), now: new Date(), ...(created ? { created } : {}) };
  return sendHtml(reply, renderUsersPage(services.pageContext(request), await services.ledger.users.list(), { ...messages, tokens }), status);
}

export function registerUsersRoutes(app: FastifyInstance, services: AppServices): void {
  const page = (request: FastifyRequest, reply: FastifyReply, status: number, options: { error?: string; notice?: string } = {}) => sendUsersPage(services, request, reply, status, options);

  const apply = async (request: FastifyRequest<{ Body: Form }>, reply: FastifyReply, change: AccountChange | string) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    if (typeof change === 'string') return page(request, reply, 400, { error: change });
    const visitor = request.visitor!;
    const result = await changeAccount(services.ledger, { name: visitor.name, via: 'web', address: request.ip }, change, { refuseSelf: true });
    if (!result.ok) return page(request, reply, result.reason === 'missing' ? 404 : result.reason === 'exists' || result.reason === 'last-admin' ? 409 : 400, { error: result.message });
    return page(request, reply, 200, { notice: result.message });
  };

  // Without accounts there is nobody to manage here: the first account is added on the server.
  const local = (request: FastifyRequest, reply: FastifyReply) =>
    sendError(services, request, reply, 404, 'No accounts yet', 'This web app serves this computer only, without accounts. Add the first one on the server: order-batch users add <name> --role admin');

  app.get('/users', { config: { access: 'manageUsers' } }, async (request, reply) => (request.visitor?.isLocal ? local(request, reply) : page(request, reply, 200)));

  app.post<{ Body: Form }>('/users', { config: { access: 'manageUsers' } }, async (request, reply) => {
    if (request.visitor?.isLocal) return local(request, reply);
    const { name = '', role = '', password = '', email = '' } = request.body ?? {};
    return apply(request, reply, isRole(role) ? { kind: 'add', name, role, password, ...(email.trim() ? { email } : {}) } : `Choose a role: viewer, operator or admin.`);
  });

  app.post<{ Params: { name: string }; Body: Form }>('/users/:name', { config: { access: 'manageUsers' } }, async (request, reply) => {
    if (request.visitor?.isLocal) return local(request, reply);
    const { name } = request.params;
    const { change = '', role = '', password = '' } = request.body ?? {};
    switch (change) {
      case 'role':
        return apply(request, reply, isRole(role) ? { kind: 'role', name, role } : 'Choose a role: viewer, operator or admin.');
      case 'email':
        return apply(request, reply, { kind: 'email', name, email: request.body?.email?.trim() || null });
      case 'disable':
      case 'enable':
      case 'remove':
        return apply(request, reply, { kind: change, name });
      case 'password':
        // One's own password only with the current one: a session left open must not be enough to take the account over.
        // Each try counts against the account's login limit, as a login does.
        if (name === request.visitor?.name && hasValidCsrf(request, request.body?._csrf)) {
          const key = `account:${name}`;
          if ((await services.ledger.attempts.count(key, LOGIN_LIMITS.windowMs)).count > LOGIN_LIMITS.perAccount) {
            return apply(request, reply, 'Too many wrong passwords for this account: wait a few minutes and try again.');
          }
          const current = await services.ledger.users.get(name);
          if (!(await verifyPassword(current?.passwordHash ?? null, request.body?.current ?? ''))) {
            return apply(request, reply, 'To set your own password, give your current one too: the one given is not it.');
          }
          await services.ledger.attempts.forgive(key, LOGIN_LIMITS.windowMs);
        }
        return apply(request, reply, { kind: 'password', name, password });
      default:
        return apply(request, reply, 'That change is not one this page makes.');
    }
  });
}
