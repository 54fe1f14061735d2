/** API tokens on the accounts page (admins only): the same as `order-batch tokens`, recorded under the admin. */
import type { FastifyInstance } from 'fastify';
import { createToken, revokeToken } from '../../accounts/tokens.js';
import { CSRF_MESSAGE, hasValidCsrf, sendError, type AppServices } from '../services.js';
import { sendUsersPage } from './users-routes.js';

type Form = Record<string, string> | undefined;

export function registerTokenRoutes(app: FastifyInstance, services: AppServices): void {
  const clock = services.options.clock ?? (() => new Date());
  app.post<{ Body: Form }>('/users/tokens', { config: { access: 'manageUsers' } }, async (request, reply) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    const { user = '', label = '', expires = '' } = request.body ?? {};
    const actor = { name: request.visitor!.name, via: 'web' as const, address: request.ip };
    const made = await createToken(services.ledger, actor, { userName: user, label, expires }, clock());
    if (!made.ok) return sendUsersPage(services, request, reply, made.reason === 'exists' ? 409 : made.reason === 'missing' ? 404 : 400, { error: made.message });
    return sendUsersPage(services, request, reply, 200, { notice: made.message, created: { label: made.value.label, token: made.value.token } });
  });

  app.post<{ Params: { label: string }; Body: Form }>('/users/tokens/:label/revoke', { config: { access: 'manageUsers' } }, async (request, reply) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    const result = await revokeToken(services.ledger, { name: request.visitor!.name, via: 'web', address: request.ip }, request.params.label);
    return sendUsersPage(services, request, reply, result.ok ? 200 : 404, result.ok ? { notice: result.message } : { error: result.message });
  });
}
