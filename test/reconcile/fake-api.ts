/** A scripted in-memory ApiClient for reconcile's fetching tests: records calls, can fail on demand. */
import { HttpError } from '../../src/api/errors.js';
import type { ApiClient, ListOrdersQuery, PageResult, TrackingQuery } from '../../src/api/types.js';
import type { OrderRead, PackageRecord } from '../../src/contract/schemas.js';

export interface Call {
  method: 'getOrder' | 'listOrders' | 'getPackages' | 'getTrackingUpdates';
  arg: unknown;
}

export interface FakeApi extends ApiClient {
  orders: Map<string, OrderRead>;
  packages: Map<string, PackageRecord>;
  calls: Call[];
  /** Errors to throw, in turn, on the next calls of a method. */
  failures: Map<Call['method'], unknown[]>;
  /** The most requests seen in flight at once. */
  peakInFlight: number;
  /** The API's clock as its Date headers would tell it; null (the default): answers without a Date header. */
  serverTime: Date | null;
  callsOf(method: Call['method']): Call[];
}

export function httpError(status: number): HttpError {
  return new HttpError(`status ${status}`, { method: 'GET', url: 'http://fake/api', status, body: '' });
}

export function createFakeApi(): FakeApi {
  let inFlight = 0;
  const api: FakeApi = {
    orders: new Map(),
    packages: new Map(),
    calls: [],
    failures: new Map(),
    peakInFlight: 0,
    serverTime: null,
    callsOf: (method) => api.calls.filter((c) => c.method === method),
    createOrder: () => Promise.reject(new Error('not used')),
    getOrder: (id) => run('getOrder', id, () => {
      const order = api.orders.get(id);
      return order ? { order: structuredClone(order) } : null;
    }),
    listOrders: (query?: ListOrdersQuery) => run('listOrders', query, () => ({ data: [...api.orders.values()].map((o) => structuredClone(o)) })),
    // The same request as listOrders (whatever a test makes of that), its answer handed over order by order.
    eachListedOrder: async (query: ListOrdersQuery, onOrder: (order: OrderRead) => void) => {
      const page = await api.listOrders(query);
      for (const order of page.data) onOrder(order);
      return { orders: page.data.length };
    },
    // As the API does (PRODUCT.md section 6): 404 for an order it does not know, packages or not.
    getPackages: (id) =>
      run('getPackages', id, () => {
        if (!api.orders.has(id)) throw httpError(404);
        return { data: [...api.packages.values()].filter((p) => p.customerOrderId === id).map((p) => structuredClone(p)) };
      }),
    getTrackingUpdates: (query: TrackingQuery) =>
      run('getTrackingUpdates', query, (): PageResult<PackageRecord> => {
        if ('hours' in query) throw httpError(400);
        const start = Date.parse(query.startDate);
        const end = Date.parse(query.endDate);
        const all = [...api.packages.values()]
          .filter((p) => {
            const at = Date.parse(p.lastUpdated ?? '');
            return at >= start && at <= end;
          })
          .sort((a, b) => (a.packageId < b.packageId ? -1 : 1));
        const per = query.itemsPerPage ?? all.length;
        const page = query.pageNumber ?? 1;
        return {
          data: all.slice((page - 1) * per, page * per).map((p) => structuredClone(p)),
          pagination: { page, totalPages: Math.max(1, Math.ceil(all.length / per)) },
        };
      }),
    fetchTrackingUpdates: async (query: TrackingQuery) => {
      const page = await api.getTrackingUpdates(query);
      return { parse: () => page };
    },
    listInventory: () => Promise.reject(new Error('not used')),
    serverNow: async () => (api.serverTime ? new Date(api.serverTime) : null),
    close: async () => {},
  };

  async function run<T>(method: Call['method'], arg: unknown, answer: () => T): Promise<T> {
    api.calls.push({ method, arg });
    inFlight++;
    api.peakInFlight = Math.max(api.peakInFlight, inFlight);
    try {
      // A macrotask, so concurrent calls really overlap.
      await new Promise((resolve) => setImmediate(resolve));
      const queued = api.failures.get(method);
      if (queued && queued.length > 0) throw queued.shift();
      return answer();
    } finally {
      inFlight--;
    }
  }
  return api;
}
