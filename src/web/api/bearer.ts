/**
 * The API's door: `Authorization: Bearer <token>` and nothing else. A cookie session is never
 * accepted under /api/v1: a browser sends its cookies with any request another site makes it send, so
 * a session accepted here would let that site act with the person's role (CSRF), and the API, meant
 * for other systems, carries no CSRF token. A bearer token is sent only by code that holds it, so the
 * session's CSRF check does not apply. The token is looked up in the ledger on every request (by its
 * hash): a revoked token, or one of a disabled account, is refused at once by every instance.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { articleOf, hashToken, isTokenShaped } from '../../accounts/tokens.js';
import { isAllowed, PERMISSIONS, type Permission } from '../../accounts/roles.js';
import { recordAudit, type AppServices } from '../services.js';
import { sendProblem } from './problems.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The label of the API token the request came with (null: not an API request). */
    apiToken: string | null;
  }
  interface FastifyContextConfig {
    /** An HTTP API route: its own door (bearer tokens), never a session; `apiAccess` is what it needs. */
    isApi?: boolean;
    apiAccess?: Permission;
    /** The audit entry of a read (writes record what they did themselves). */
    auditRead?: string;
  }
}

export function installBearer(app: FastifyInstance, services: AppServices): void {
  app.decorateRequest('apiToken', null);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config ?? {};
    if (!config.isApi || config.access === 'public') return;
    const given = bearerOf(request);
    if (given === undefined) {
      reply.header('www-authenticate', 'Bearer realm="order-batch"');
      return sendProblem(reply, 'unauthorized', 'Send an API token as `Authorization: Bearer <token>` (order-batch tokens create makes one). Browser sessions are not accepted here.');
    }
    const holder = isTokenShaped(given) ? await services.ledger.tokens.find(hashToken(given)) : null;
    if (!holder) {
      reply.header('www-authenticate', 'Bearer realm="order-batch", error="invalid_token"');
      return sendProblem(reply, 'unauthorized', 'The token is not known: it was revoked, it expired, its account is disabled or removed, or it was mistyped.');
    }
    request.visitor = { name: holder.userName, role: holder.role, isLocal: false };
    request.apiToken = holder.label;
    const access = config.apiAccess ?? 'view';
    if (!isAllowed(holder.role, access)) {
      await recordAudit(services, request, { action: 'refused', ref: (request.params as { id?: string } | undefined)?.id ?? null, detail: `${request.method} ${request.routeOptions.url} needs the ${PERMISSIONS[access]} role; ${holder.userName} is ${holder.role}` });
      return sendProblem(reply, 'forbidden', `The token ${holder.label} acts for ${holder.userName}, ${articleOf(holder.role)} ${holder.role}; this needs the ${PERMISSIONS[access]} role.`);
    }
  });
  // Reads are recorded once answered, with the status they got (writes record what they did).
  app.addHook('onResponse', async (request, reply) => {
    const what = request.routeOptions.config?.auditRead;
    if (!what || !request.apiToken || reply.statusCode >= 400) return;
    await recordAudit(services, request, { action: 'api_read', ref: (request.params as { id?: string } | undefined)?.id ?? null, detail: what });
  });
}

/** The token of `Authorization: Bearer <token>`; undefined without one. */
function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
