/**
 * The sandbox's HTTP server: fastify for routing and body parsing, with the cross-cutting rules
 * here: content negotiation, faults, request ids, 403/404/405/406/413/415 answers in the error shape
 * of PRODUCT.md section 6 (403: a web page at the /sandbox/ controls, see refuseForeignCaller), and
 * never a 500 for a client's mistake.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { registerApiRoutes } from './api-routes.js';
import { registerAuthRoutes } from './auth-routes.js';
import type { SandboxContext } from './context.js';
import { refuseForeignCaller, registerControlRoutes } from './control-routes.js';
import { describeFrameworkError, HttpProblem } from './problems.js';
import { asSandboxRequest, atReplyTime, negotiateResponseType, sendError } from './respond.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Every path the sandbox serves and the methods it takes there; any other method is a 405. */
const ROUTE_METHODS: [string, string[]][] = [
  ['/api/v0/oauth/token', ['POST']],
  ['/api/v0/auth/getToken', ['POST']],
  ['/api/v0/shipments/tracking-updates', ['GET']],
  ['/api/v0/orders', ['GET', 'POST']],
  ['/api/v0/orders/:customerOrderId', ['GET']],
  ['/api/v0/orders/:customerOrderId/packages', ['GET']],
  ['/api/v0/inventory/items', ['GET']],
  ['/sandbox/clock', ['GET', 'POST']],
  ['/sandbox/faults', ['GET', 'POST']],
  ['/sandbox/stats', ['GET']],
  ['/sandbox/reset', ['POST']],
];

const FAULT_MESSAGES: Record<number, string> = {
  429: 'Too Many Requests (sandbox fault injection); retry after the Retry-After delay.',
  500: 'Internal Server Error (sandbox fault injection).',
  503: 'Service Unavailable (sandbox fault injection).',
};

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export async function buildSandboxServer(ctx: SandboxContext, options: { logRequests?: boolean } = {}): Promise<FastifyInstance> {
  const app = createApp(ctx, options.logRequests === true);
  app.addHook('onRequest', onEachRequest(ctx, options.logRequests === true));
  app.setErrorHandler((error: FastifyError | HttpProblem, request: FastifyRequest, reply: FastifyReply) => answerError(ctx, error, request, reply));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, 404, `No such endpoint: ${request.method} ${pathOf(request.url)}`));
  await registerAuthRoutes(app, ctx);
  registerApiRoutes(app, ctx);
  registerControlRoutes(app, ctx);
  refuseOtherMethods(app);
  return app;
}

/** Fastify as the sandbox needs it: request ids of its own, no prototype poisoning, the request fields the hooks fill in. */
function createApp(ctx: SandboxContext, logRequests: boolean): FastifyInstance {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: !logRequests }),
    // Without request logging a per-request child logger is pure cost.
    ...(logRequests ? {} : { childLoggerFactory: (logger: FastifyBaseLogger) => logger }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // JSON.parse gives __proto__ as an own key, never a prototype, and zod copies known keys only.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    bodyLimit: 1_048_576,
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: (error, request, reply) => {
      asSandboxRequest(request).sbNowMs = ctx.clock.nowMs;
      sendError(request, reply, error.statusCode && error.statusCode < 500 ? error.statusCode : 400, describeFrameworkError(error.code, error.message, undefined));
    },
  });
  app.decorateRequest('sbType', 'application/json');
  app.decorateRequest('sbLoseReply', false);
  app.decorateRequest('sbClient', null);
  app.decorateRequest('sbLogged', false);
  app.decorateRequest('sbReplyAt', 0);
  app.decorateRequest('sbLatencyClock', null);
  app.decorateRequest('sbNowMs', null);
  // Only JSON bodies (and multipart on the oauth endpoint): text/plain bodies get a 415.
  app.removeContentTypeParser('text/plain');
  return app;
}

/**
 * What every request meets first: its id and clock, the latency of a faulted path, content
 * negotiation, the control routes' refusal of foreign callers, the count of POSTs, then the faults.
 * Callback style rather than async: this runs on every request and usually has nothing to wait for.
 */
function onEachRequest(ctx: SandboxContext, logRequests: boolean) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const r = asSandboxRequest(request);
    r.sbLogged = logRequests;
    reply.header('x-request-id', request.id);
    r.sbNowMs = ctx.clock.nowMs;
    const path = pathOf(request.url);
    const isFaulted = ctx.faults.appliesTo(path);
    const latency = isFaulted ? ctx.faults.latencyMs() : 0;
    // Every answer on a faulted path waits, a 406 included.
    if (latency > 0) {
      r.sbLatencyClock = ctx.latencyClock;
      r.sbReplyAt = ctx.latencyClock.now() + latency;
    }
    const type = negotiateResponseType(request.headers.accept);
    if (!type) {
      sendError(request, reply, 406, 'Not acceptable: answers are application/json, text/json or text/plain.');
      return;
    }
    r.sbType = type;
    const refusal = controlRefusal(request, path);
    if (refusal) {
      sendError(request, reply, 403, refusal);
      return;
    }
    if (request.method === 'POST' && path === '/api/v0/orders') {
      ctx.state.counters.postsReceived++;
      // Out once the answer is handed to the socket ('finish'), before the client can act on it; or
      // once the connection is gone without an answer (a reset, a lost reply).
      const leave = ctx.postsInFlight.enter();
      reply.raw.once('finish', leave).once('close', leave);
    }
    if (!isFaulted) {
      done();
      return;
    }
    injectFault(ctx, request, reply, done);
  };
}

/** Why a request for a control route is refused (a web page at /sandbox/), if it is. */
function controlRefusal(request: FastifyRequest, path: string): string | undefined {
  // The route the router matched, not the raw path: it decodes /%73andbox/reset to a control route too.
  if (!(request.routeOptions.url ?? path).startsWith('/sandbox/')) return undefined;
  const secFetchSite = request.headers['sec-fetch-site'];
  return (
    refuseForeignCaller({
      method: request.method,
      host: request.headers.host,
      origin: request.headers.origin,
      secFetchSite: typeof secFetchSite === 'string' ? secFetchSite : undefined,
      localAddress: request.raw.socket?.localAddress,
    }) ?? undefined
  );
}

function injectFault(ctx: SandboxContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const decision = ctx.faults.decide();
  if (decision.kind === 'reset') {
    reply.hijack();
    atReplyTime(request, reply, () => request.raw.socket?.destroy());
    return;
  }
  if (decision.kind === 'error') {
    if (decision.status === 429) reply.header('retry-after', '1');
    sendError(request, reply, decision.status, FAULT_MESSAGES[decision.status] ?? `Error ${decision.status} (sandbox fault injection).`);
    return;
  }
  if (decision.kind === 'lost_reply') asSandboxRequest(request).sbLoseReply = true;
  done();
}

/** A problem a route threw in the error shape; a client's mistake never as a 500. */
function answerError(ctx: SandboxContext, error: FastifyError | HttpProblem, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpProblem) {
    for (const [k, v] of Object.entries(error.headers ?? {})) reply.header(k, v);
    return sendError(request, reply, error.status, error.message, error.errors);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return sendError(request, reply, status, describeFrameworkError(error.code, error.message, request.headers['content-type']));
  }
  ctx.logger.error({ err: error, method: request.method, url: pathOf(request.url) }, 'sandbox bug');
  return sendError(request, reply, 500, 'Internal sandbox error.');
}

/** A 405 with Allow for every other method on a served path. */
function refuseOtherMethods(app: FastifyInstance): void {
  for (const [url, allowed] of ROUTE_METHODS) {
    const others = METHODS.filter((m) => !allowed.includes(m) && !(m === 'HEAD' && allowed.includes('GET')));
    // Answered in onRequest, before any body is parsed: a PUT with a broken body is still a 405.
    const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('allow', allowed.join(', '));
      return sendError(request, reply, 405, `Method ${request.method} is not allowed on ${url}; use ${allowed.join(' or ')}.`);
    };
    app.route({ method: others, url, onRequest: refuse, handler: refuse });
  }
}
