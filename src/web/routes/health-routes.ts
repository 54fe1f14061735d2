/**
 * The service's probes and metrics (PRODUCT.md section 9): /healthz (the process serves), /readyz
 * (the ledger answers, its schema current), /metrics (Prometheus' text format). None needs a session:
 * monitoring has no account. They are answered even when a server reachable by others has no account yet.
 */
import type { FastifyInstance } from 'fastify';
import { mayReadMetrics } from '../../metrics/access.js';
import { checkReadiness } from '../../metrics/readiness.js';
import { LedgerError } from '../../ledger/index.js';
import type { AppServices } from '../services.js';

const PROBE = { config: { access: 'public' as const, isAsset: true } };

export function registerHealthRoutes(app: FastifyInstance, services: AppServices, schemaVersion: string): void {
  const { metrics } = services;
  app.get('/healthz', PROBE, async (_request, reply) => reply.code(200).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('ok\n'));
  app.get('/readyz', PROBE, async (_request, reply) => {
    const readiness = await checkReadiness(() => services.ledger.describe(), schemaVersion);
    // A failure the ledger classified is counted by the ledger itself (observeInto); a late answer, a moved schema or anything else here.
    if (!readiness.isReady && !(readiness.error instanceof LedgerError)) metrics.ledgerErrors.inc();
    return reply
      .code(readiness.isReady ? 200 : 503)
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8')
      .send(readiness.isReady ? 'ready\n' : `not ready: ${readiness.reason}\n`);
  });
  app.get('/metrics', PROBE, async (request, reply) => {
    if (!mayReadMetrics({ ip: request.ip, authorization: request.headers.authorization }, services.options.metricsToken)) {
      return reply.code(401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send('/metrics needs Authorization: Bearer <ORDER_BATCH_METRICS_TOKEN> from another computer.\n');
    }
    return reply.code(200).header('cache-control', 'no-store').type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
