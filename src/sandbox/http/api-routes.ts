/** The fulfillment API under /api/v0 (api-spec section 4, PRODUCT.md section 6). */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_SEARCH_BY, SEARCH_BY, type SearchBy } from '../../contract/enums.js';
import { LIMITS } from '../../contract/limits.js';
import { API_MESSAGES, LINE_ITEM_DISPOSITION_FILTERS, ORDER_DISPOSITION_FILTERS } from '../../contract/schemas.js';
import { checkCreatePayload } from '../create-order.js';
import { createdLine } from '../fulfillment.js';
import { hasUtcOffset, parseApiInstant } from '../dates.js';
import type { PlannedPackage } from '../model.js';
import { availableInCenter, availableInNetwork } from '../stock.js';
import { createSelectionCache, selectPackages, type TrackingFilter } from '../tracking.js';
import { listedOrdersJson } from '../list-orders.js';
import { packageJson, viewOrder } from '../views.js';
import { createAuthenticate } from './auth-routes.js';
import type { SandboxContext } from './context.js';
import { badParameter, HttpProblem } from './problems.js';
import { oneOrderResponseSchema } from './response-schemas.js';
import { pageOf, readInt, readList, readOne, readPaging, rejectUnknownParameters, type Paging, type RawQuery } from './query.js';
import { asSandboxRequest, sendCachedHead, sendError, sendJson, sendText, sendTextParts } from './respond.js';

const DAY_MS = 86_400_000;

export function registerApiRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const onRequest = createAuthenticate(ctx);
  const selections = createSelectionCache();

  const oneOrder = { response: { 200: oneOrderResponseSchema, 201: oneOrderResponseSchema } };

  app.post('/api/v0/orders', { onRequest, schema: oneOrder }, async (request, reply) => {
    if (!asSandboxRequest(request).sbClient?.canWrite) return sendError(request, reply, 403, API_MESSAGES.forbidden);
    const body = request.body as { orderDetails?: { customerOrderId?: unknown } } | undefined;
    const rawId = body?.orderDetails?.customerOrderId;
    // A re-sent order is a duplicate before anything else: its date may have aged out since.
    if (typeof rawId === 'string' && ctx.state.hasOrder(rawId.trim())) {
      ctx.state.recordDuplicate();
      return sendError(request, reply, 409, API_MESSAGES.alreadyExists(rawId.trim()));
    }
    const nowMs = ctx.clock.nowMs();
    const check = checkCreatePayload(request.body, { schema: ctx.schema, nowMs, products: ctx.state.catalogue.products });
    if (!check.ok) return sendError(request, reply, 400, check.message, check.errors);
    const outcome = ctx.state.acceptOrder(check.payload, nowMs);
    if (outcome.kind === 'duplicate') return sendError(request, reply, 409, API_MESSAGES.alreadyExists(check.payload.orderDetails.customerOrderId));
    if (outcome.kind === 'out_of_stock') return sendError(request, reply, 409, API_MESSAGES.outOfStock(outcome.productId));
    const lines = check.payload.orderDetails.lineItems.map((item) => createdLine(item, nowMs));
    const orderDetails = viewOrder(outcome.order, lines, nowMs);
    return sendText(request, reply, 201, serializeOne(reply.code(201), { data: { orderDetails }, requestId: request.id }));
  });

  app.get('/api/v0/orders', { onRequest }, async (request, reply) => {
    const query = request.query as RawQuery;
    rejectUnknownParameters(query, ['lastDays', 'orderDisposition', 'orderLineItemDisposition']);
    const lastDays = readInt(query, 'lastDays', 1, LIMITS.lastDaysMax) ?? LIMITS.lastDaysDefault;
    const orderDispositions = readList(query, 'orderDisposition', ORDER_DISPOSITION_FILTERS) ?? ['api'];
    const lineDispositions = readList(query, 'orderLineItemDisposition', LINE_ITEM_DISPOSITION_FILTERS) ?? ['all'];
    const nowMs = ctx.clock.nowMs();
    const since = nowMs - lastDays * DAY_MS;
    const items = await listedOrdersJson(ctx.state, { since, nowMs, orderDispositions, lineDispositions }, nextTurn);
    return sendTextParts(request, reply, 200, '{"data":[', items, `],"requestId":${JSON.stringify(request.id)}}`);
  });

  app.get('/api/v0/orders/:customerOrderId', { onRequest, schema: oneOrder }, async (request, reply) => {
    rejectUnknownParameters(request.query as RawQuery, []);
    const order = findOrder(ctx, request);
    const orderDetails = viewOrder(order, ctx.state.planOf(order).lines, ctx.clock.nowMs());
    return sendText(request, reply, 200, serializeOne(reply.code(200), { data: { orderDetails }, requestId: request.id }));
  });

  app.get('/api/v0/orders/:customerOrderId/packages', { onRequest }, async (request, reply) => {
    const query = request.query as RawQuery;
    rejectUnknownParameters(query, ['pageNumber', 'itemsPerPage']);
    const paging = readPaging(query, LIMITS.itemsPerPageMax, LIMITS.pageNumberMin);
    const order = findOrder(ctx, request);
    const nowMs = ctx.clock.nowMs();
    const packages = ctx.state
      .planOf(order)
      .packages.filter((p) => p.createdAtMs <= nowMs)
      .sort((a, b) => a.createdAtMs - b.createdAtMs);
    return sendPackages(request, reply, packages, paging, nowMs);
  });

  app.get('/api/v0/shipments/tracking-updates', { onRequest }, async (request, reply) => {
    const query = request.query as RawQuery;
    rejectUnknownParameters(query, ['hours', 'searchBy', 'startDate', 'endDate', 'pageNumber', 'itemsPerPage']);
    const filter = readTrackingFilter(query);
    const paging = readPaging(query, LIMITS.itemsPerPageMax, LIMITS.pageNumberMin);
    const nowMs = ctx.clock.nowMs();
    const packages = ctx.state.allPackages();
    const version = ctx.state.packagesVersion();
    const key = JSON.stringify(filter);
    const entry =
      selections.get(key, version, nowMs) ??
      selections.put(key, version, selectPackages(packages, filter, nowMs, (id) => ctx.state.getOrder(id)?.createdAtMs));
    const pageKey = paging ? `${paging.pageNumber}:${paging.itemsPerPage}` : '';
    const tail = `,"requestId":${JSON.stringify(request.id)}}`;
    const cached = entry.pages.get(pageKey);
    if (cached) return sendCachedHead(request, reply, 200, cached, tail);
    const page = packagesPage(entry.selection.packages, paging, nowMs);
    if (cached === undefined) {
      entry.pages.set(pageKey, null);
      return sendText(request, reply, 200, page + tail);
    }
    const head = Buffer.from(page, 'utf8');
    entry.pages.set(pageKey, head);
    return sendCachedHead(request, reply, 200, head, tail);
  });

  app.get('/api/v0/inventory/items', { onRequest }, async (request, reply) => {
    const query = request.query as RawQuery;
    rejectUnknownParameters(query, ['pageNumber', 'itemsPerPage', 'productId']);
    const paging = readPaging(query, LIMITS.itemsPerPageMax, LIMITS.pageNumberMin) ?? { pageNumber: 1, itemsPerPage: 100 };
    const productId = readOne(query, 'productId');
    const { catalogue, stock } = ctx.state;
    const products = [...catalogue.products.values()]
      .filter((p) => productId === undefined || p.productId === productId)
      .sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
    const page = pageOf(products, paging);
    const data = page.data.map((p) => ({
      productId: p.productId,
      sku: p.sku,
      upc: p.upc,
      name: p.name,
      availableQuantity: availableInNetwork(stock, catalogue, p),
      fulfillmentCenters: catalogue.centers.map((id) => ({ id, availableQuantity: availableInCenter(stock, catalogue.products, p, id) })),
    }));
    return sendJson(request, reply, 200, { data, pagination: page.pagination });
  });
}

/** The route's compiled response serializer (oneOrderResponseSchema for the reply's status): always JSON text. */
function serializeOne(reply: FastifyReply, body: { data: { orderDetails: unknown }; requestId: string }): string {
  return reply.serialize(body) as string;
}

function findOrder(ctx: SandboxContext, request: FastifyRequest) {
  const id = (request.params as { customerOrderId: string }).customerOrderId;
  const order = ctx.state.getOrder(id);
  if (!order) throw new HttpProblem(404, `Order '${id}' not found.`);
  return order;
}

function readTrackingFilter(query: RawQuery): TrackingFilter {
  const hours = readInt(query, 'hours', 1, LIMITS.trackingHoursMax);
  const searchBy = readOne(query, 'searchBy');
  const startDate = readOne(query, 'startDate');
  const endDate = readOne(query, 'endDate');
  if (hours !== undefined) {
    if (searchBy !== undefined || startDate !== undefined || endDate !== undefined) {
      throw new HttpProblem(400, 'Give either hours, or startDate and endDate (with searchBy), not both.');
    }
    return { kind: 'hours', hours };
  }
  if (startDate === undefined && endDate === undefined) {
    throw new HttpProblem(400, 'Give hours (1 to 720), or startDate and endDate.', [{ field: 'hours', message: 'is required without startDate and endDate' }]);
  }
  if (searchBy !== undefined && !(SEARCH_BY as readonly string[]).includes(searchBy)) {
    throw badParameter('searchBy', `'${searchBy}' is not one of ${SEARCH_BY.join(', ')}`);
  }
  const startMs = readInstant('startDate', startDate);
  const endMs = readInstant('endDate', endDate);
  if (startMs > endMs) throw badParameter('startDate', 'must not be after endDate');
  return { kind: 'period', searchBy: (searchBy as SearchBy | undefined) ?? DEFAULT_SEARCH_BY, startMs, endMs };
}

function readInstant(name: string, text: string | undefined): number {
  if (text === undefined) throw badParameter(name, 'is required with startDate/endDate');
  const ms = hasUtcOffset(text) ? parseApiInstant(text) : null;
  if (ms === null) throw badParameter(name, 'must be an ISO 8601 date-time with an offset, e.g. 2024-05-01T00:00:00Z');
  return ms;
}

/**
 * A page of packages as JSON text up to (not including) the requestId and closing brace, built from
 * JSON cached per package stage: tracking pages are the hot path of reconciliation.
 */
function packagesPage(packages: readonly PlannedPackage[], paging: Paging | null, nowMs: number): string {
  let slice = packages;
  let pagination = '';
  if (paging) {
    const page = pageOf(packages, paging);
    slice = page.data;
    pagination = `,"pagination":${JSON.stringify(page.pagination)}`;
  }
  const parts: string[] = [];
  for (const pkg of slice) {
    const text = packageJson(pkg, nowMs);
    if (text !== null) parts.push(text);
  }
  return `{"data":[${parts.join(',')}]${pagination}`;
}

function sendPackages(request: FastifyRequest, reply: FastifyReply, packages: readonly PlannedPackage[], paging: Paging | null, nowMs: number) {
  return sendText(request, reply, 200, `${packagesPage(packages, paging, nowMs)},"requestId":${JSON.stringify(request.id)}}`);
}
