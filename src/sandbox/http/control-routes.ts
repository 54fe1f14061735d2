/**
 * The sandbox's own controls under /sandbox/ (PRODUCT.md section 7). No token: they are for the local
 * tester, a script or curl. What keeps web pages away from them is refuseForeignCaller.
 */
import { isIP } from 'node:net';
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

export interface ControlCaller {
  method: string;
  /** The Host header (host[:port]). */
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  /** The address the connection arrived on; undefined for an injected request, taken as loopback. */
  localAddress: string | undefined;
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return true;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** The host name of a Host header: `[::1]:8787` gives `::1`, `Localhost:80` gives `localhost`. */
function hostNameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * Why a control request must be refused (403), or null to serve it. Any web page the user has open
 * can make the browser send requests here, so:
 * - a state-changing request that carries an Origin (browsers send one on every cross-site POST,
 *   no-cors ones included) must come from the sandbox's own origin; `Sec-Fetch-Site` decides when
 *   there is no Origin. Scripts and curl send neither, and keep working.
 * - on a loopback connection, the Host must be an IP address or localhost: a DNS-rebinding page
 *   reaches 127.0.0.1 under its own name, and would otherwise read and reset the sandbox as its
 *   own origin. A sandbox bound to another interface (`--host 0.0.0.0` in a container) is reached
 *   under names on purpose, and there the Host is not checked.
 */
export function refuseForeignCaller(caller: ControlCaller): string | null {
  const { host } = caller;
  if (host !== undefined && isLoopbackAddress(caller.localAddress)) {
    const name = hostNameOf(host);
    if (isIP(name) === 0 && name !== 'localhost' && !name.endsWith('.localhost')) {
      return `The sandbox's controls answer only requests addressed to it by IP address or localhost, not as '${host}' (a web page reaching this computer under its own name).`;
    }
  }
  if (caller.method === 'GET' || caller.method === 'HEAD') return null;
  if (caller.origin !== undefined) {
    if (host !== undefined && caller.origin.trim().toLowerCase() === `http://${host.trim().toLowerCase()}`) return null;
    return `Refused: a web page at ${caller.origin} tried to use the sandbox's controls. Call them from a script or curl (no Origin header).`;
  }
  const site = caller.secFetchSite;
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return `Refused: a ${site} web page tried to use the sandbox's controls. Call them from a script or curl.`;
  }
  return null;
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

  // Forgets the most seen so far, keeping the orders: a test counts from a moment of its choosing (what is in flight then stays counted).
  app.post('/sandbox/stats/reset-max', async (request, reply) => {
    ctx.postsInFlight.resetMax();
    return sendJson(request, reply, 200, { ...ctx.stats() });
  });

  app.post('/sandbox/reset', async (request, reply) => {
    ctx.state.reset();
    ctx.postsInFlight.resetMax();
    return sendJson(request, reply, 200, { ...ctx.stats() });
  });
}
