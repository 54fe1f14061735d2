/** The sandbox's own controls under /sandbox/ (PRODUCT.md section 7). No token: they are for the local tester. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { formatPath } from '../create-order.js';
import { faultSettingsSchema } from '../faults.js';
import { toIso } from '../dates.js';
import type { SandboxContext } from './context.js';
import { HttpProblem } from './problems.js';
import { sendJson } from './respond.js';

const clockSchema = z.object({ advanceHours: z.number().min(0, 'must be >= 0 (the clock only moves forward)').max(24 * 365 * 10) }).strict();

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.map((i) => ({ field: formatPath(i.path) || undefined, message: i.message }));
  throw new HttpProblem(400, `Invalid body: ${errors.map((e) => (e.field ? `${e.field} ${e.message}` : e.message)).join('; ')}`, errors);
}

export function registerControlRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get('/sandbox/clock', async (request, reply) => sendJson(request, reply, 200, { now: toIso(ctx.clock.nowMs()) }));

  app.post('/sandbox/clock', async (request, reply) => {
    const { advanceHours } = parseBody(clockSchema, request.body);
    ctx.clock.advance(advanceHours);
    ctx.state.onChange?.();
    return sendJson(request, reply, 200, { now: toIso(ctx.clock.nowMs()) });
  });

  app.get('/sandbox/faults', async (request, reply) => sendJson(request, reply, 200, { faults: ctx.faults.get() }));

  app.post('/sandbox/faults', async (request, reply) => {
    const settings = parseBody(faultSettingsSchema, request.body);
    ctx.faults.set(settings);
    return sendJson(request, reply, 200, { faults: ctx.faults.get() });
  });

  app.get('/sandbox/stats', async (request, reply) => sendJson(request, reply, 200, { ...ctx.stats() }));

  app.post('/sandbox/reset', async (request, reply) => {
    ctx.state.reset();
    return sendJson(request, reply, 200, { ...ctx.stats() });
  });
}
