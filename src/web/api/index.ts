/**
 * The HTTP API under /api/v1: bearer tokens (bearer.ts), JSON answers, errors as problem details
 * (problems.ts), and its OpenAPI 3.1 document at /api/v1/openapi.json, built by @fastify/swagger from
 * the schemas the routes validate and serialize with.
 */
import swagger from '@fastify/swagger';
import type { FastifyError, FastifyInstance } from 'fastify';
import { formatBytes } from '../pages/upload-page.js';
import { drainUnread, type AppServices } from '../services.js';
import { installBearer } from './bearer.js';
import { API_PREFIX } from '../api-prefix.js';
import { sendProblem } from './problems.js';
import { PROBLEM_SCHEMA } from './schemas.js';
import { registerApiSheetRoutes } from './sheet-routes.js';
import { registerApiJobRoutes, registerApiReconcileRoutes } from './work-routes.js';

const DEFAULT_REQUESTS_PER_MINUTE = 6_000;

export async function registerApi(app: FastifyInstance, services: AppServices): Promise<void> {
  await app.register(
    async (api) => {
      await api.register(swagger, {
        openapi: {
          openapi: '3.1.0',
          info: {
            title: 'order-batch API',
            version: '1',
            description: 'Check order sheets, submit their valid orders, follow the jobs, reconcile. Errors are application/problem+json (RFC 9457). See docs/api.md.',
          },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'order-batch tokens create --user <name> --name <label>' } } },
          security: [{ bearer: [] }],
        },
        refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
      });
      api.addSchema(PROBLEM_SCHEMA);
      installBearer(api, services);
      const perMinute = services.options.apiRequestsPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE;
      // Counted per token in the ledger, as failed logins are: every instance counts the same requests.
      api.addHook(
        'onRequest',
        api.rateLimit({
          max: perMinute,
          timeWindow: 60_000,
          keyGenerator: (request) => `api:${request.apiToken ?? ''}`,
          allowList: (request) => request.apiToken === null,
          errorResponseBuilder: (_request, context) => Object.assign(new Error(`More than ${context.max} requests a minute with this token: wait ${context.after} and try again.`), { statusCode: 429, retryAfterMs: context.ttl }),
        }),
      );
      api.setErrorHandler((error: FastifyError & { retryAfterMs?: number }, request, reply) => {
        if (error.statusCode === 429) return sendProblem(reply, 'too-many-requests', error.message, { retryAfterSeconds: (error.retryAfterMs ?? 60_000) / 1000 });
        if (error.statusCode === 413 || error.code === 'FST_REQ_FILE_TOO_LARGE') {
          drainUnread(request);
          return sendProblem(reply, 'too-large', `Uploads are limited to one file of at most ${formatBytes(services.maxUploadBytes)}.`);
        }
        if (error.validation) return sendProblem(reply, 'bad-request', `The request does not fit the API's schema: ${error.message}.`);
        if ((error.statusCode ?? 500) < 500) return sendProblem(reply, 'bad-request', error.message);
        services.logger.error({ err: error, url: request.url }, 'API request failed');
        return sendProblem(reply, 'internal', 'order-batch hit an internal error; the server log has the details. Nothing was sent twice: the ledger keeps every order\'s state.');
      });
      api.setNotFoundHandler((request, reply) => sendProblem(reply, 'not-found', `There is no ${request.method} ${request.url.split('?')[0]} in the API; /api/v1/openapi.json lists what there is.`));
      api.get('/openapi.json', { config: { isApi: true, access: 'public' }, schema: { hide: true } }, async (_request, reply) => reply.header('cache-control', 'no-store').send(api.swagger()));
      registerApiSheetRoutes(api, services, API_PREFIX);
      registerApiJobRoutes(api, services, API_PREFIX);
      registerApiReconcileRoutes(api, services, API_PREFIX);
    },
    { prefix: API_PREFIX },
  );
}
