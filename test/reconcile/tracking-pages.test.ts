/** The reader's tracking-update paging: lanes, the order of asking and parsing, a window that grows. */
import { describe, expect, it } from 'vitest';
import type { PageResult, TrackingQuery, UnparsedPage } from '../../src/api/types.js';
import type { PackageRecord } from '../../src/contract/schemas.js';
import { silentLogger } from '../../src/log.js';
import { createApiReader } from '../../src/reconcile/fetch.js';
import { pkg } from './builders.js';
import { createFakeApi } from './fake-api.js';

const window = { startDate: '2030-01-01T00:00:00Z', endDate: '2030-01-02T00:00:00Z' };

/** A client whose page N holds one package and reports `totalPagesOf(N)`; logs each ask and parse. */
function pagedApi(totalPagesOf: (pageNumber: number) => number) {
  const api = createFakeApi();
  const log: string[] = [];
  api.fetchTrackingUpdates = async (query: TrackingQuery): Promise<UnparsedPage<PackageRecord>> => {
    const n = query.pageNumber ?? 1;
    log.push(`ask ${n}`);
    await new Promise((resolve) => setImmediate(resolve));
    const page: PageResult<PackageRecord> = {
      data: [pkg({ id: `P-${n}`, order: `O-${n}`, items: [] })],
      pagination: { page: n, totalPages: totalPagesOf(n) },
    };
    return {
      parse: () => {
        log.push(`parse ${n}`);
        return page;
      },
    };
  };
  return { api, log };
}

describe('reading a tracking window', () => {
  it('asks for a lane’s next page before it parses the one in hand', async () => {
    const { api, log } = pagedApi(() => 4);
    const reader = createApiReader({ client: api, logger: silentLogger, concurrency: 1 });
    const seen: string[] = [];
    const result = await reader.readTrackingWindow(window, (records) => seen.push(...records.map((r) => r.packageId)));
    expect(result).toEqual({ pages: 4, packages: 4 });
    expect(seen).toEqual(['P-1', 'P-2', 'P-3', 'P-4']);
    // Page 1 first (it tells the count of pages), then each page is asked for before the previous one is parsed.
    expect(log).toEqual(['ask 1', 'parse 1', 'ask 2', 'ask 3', 'parse 2', 'ask 4', 'parse 3', 'parse 4']);
  });

  it('fetches the pages a later page reports when the window grew meanwhile', async () => {
    const { api, log } = pagedApi((n) => (n === 1 ? 2 : 5));
    const reader = createApiReader({ client: api, logger: silentLogger, concurrency: 3 });
    const result = await reader.readTrackingWindow(window, () => undefined);
    expect(result).toEqual({ pages: 5, packages: 5 });
    expect(log.filter((l) => l.startsWith('ask')).sort()).toEqual(['ask 1', 'ask 2', 'ask 3', 'ask 4', 'ask 5']);
  });

  it('keeps the concurrency limit, and holds at most a page per lane waiting to be parsed', async () => {
    const { api } = pagedApi(() => 30);
    let inFlight = 0;
    let peak = 0;
    let unparsed = 0;
    let peakUnparsed = 0;
    const fetch = api.fetchTrackingUpdates.bind(api);
    api.fetchTrackingUpdates = async (query) => {
      peak = Math.max(peak, ++inFlight);
      try {
        const page = await fetch(query);
        peakUnparsed = Math.max(peakUnparsed, ++unparsed);
        return {
          parse: () => {
            unparsed--;
            return page.parse();
          },
        };
      } finally {
        inFlight--;
      }
    };
    const reader = createApiReader({ client: api, logger: silentLogger, concurrency: 4 });
    expect(await reader.readTrackingWindow(window, () => undefined)).toEqual({ pages: 30, packages: 30 });
    expect(peak).toBe(4);
    expect(unparsed).toBe(0);
    expect(peakUnparsed).toBeLessThanOrEqual(4);
  });

  it('takes the pages in page order whatever order they come in, so the same answers give the same result', async () => {
    const { api } = pagedApi(() => 9);
    const fetch = api.fetchTrackingUpdates.bind(api);
    api.fetchTrackingUpdates = async (query) => {
      // Each page later than the one after it: with 4 in flight, they come in backwards.
      for (let i = 0; i < 20 - (query.pageNumber ?? 1) * 2; i++) await new Promise((resolve) => setImmediate(resolve));
      return fetch(query);
    };
    const reader = createApiReader({ client: api, logger: silentLogger, concurrency: 4 });
    const seen: string[] = [];
    expect(await reader.readTrackingWindow(window, (records) => seen.push(...records.map((r) => r.packageId)))).toEqual({ pages: 9, packages: 9 });
    expect(seen).toEqual(['P-1', 'P-2', 'P-3', 'P-4', 'P-5', 'P-6', 'P-7', 'P-8', 'P-9']);
  });

  it('stops, and reports the page’s error, when a page cannot be parsed', async () => {
    const { api } = pagedApi(() => 6);
    const fetch = api.fetchTrackingUpdates.bind(api);
    api.fetchTrackingUpdates = async (query) => {
      const unparsed = await fetch(query);
      if (query.pageNumber !== 3) return unparsed;
      return {
        parse: () => {
          throw new Error('page 3 is not the expected shape');
        },
      };
    };
    const reader = createApiReader({ client: api, logger: silentLogger, concurrency: 2 });
    await expect(reader.readTrackingWindow(window, () => undefined)).rejects.toThrow('page 3 is not the expected shape');
    // Later reads are refused with the same reason: the run is over.
    await expect(reader.readOrders(['O-1'])).rejects.toThrow('page 3 is not the expected shape');
  });
});
