/**
 * Every page of tracking updates in a window, read in `concurrency` lanes and handed on in page order.
 */
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { ApiClient, UnparsedPage } from '../api/types.js';
import type { SearchBy } from '../contract/enums.js';
import { LIMITS } from '../contract/limits.js';
import type { PackageRecord } from '../contract/schemas.js';
import type { ApiRequests } from './api-requests.js';

export interface TrackingWindow {
  startDate: string;
  endDate: string;
  searchBy?: SearchBy;
}

const ITEMS_PER_PAGE = LIMITS.itemsPerPageMax;

/** The pages read so far and where the window ends, as the pages say. */
interface PagesRead {
  requests: ApiRequests;
  onPage: (records: PackageRecord[]) => void;
  packages: number;
  fetched: number;
  totalPages: number;
}

export async function readTrackingWindow(
  requests: ApiRequests,
  client: ApiClient,
  window: TrackingWindow,
  onPage: (records: PackageRecord[]) => void,
  onFirstPage?: () => void,
): Promise<{ pages: number; packages: number }> {
  const query = (pageNumber: number) => ({
    searchBy: window.searchBy ?? 'updated',
    startDate: window.startDate,
    endDate: window.endDate,
    pageNumber,
    itemsPerPage: ITEMS_PER_PAGE,
  });
  const read: PagesRead = { requests, onPage, packages: 0, fetched: 0, totalPages: 1 };
  const fetchPage = (pageNumber: number) => requests.call(`tracking page ${pageNumber}`, (signal) => client.fetchTrackingUpdates(query(pageNumber), { signal }));
  takePage(read, await fetchPage(1));
  onFirstPage?.();
  // `concurrency` lanes, each asking for the next page as soon as its last one is in, and parsing
  // that one afterwards (after the pending I/O callbacks): pages that arrive together all have their
  // next request out before any of them is parsed, so no lane waits for the others' parsing. A
  // request made meanwhile (the order reads of gather.ts) waits for one page, not for all of them.
  let next = 2;
  const parsing: Promise<void>[] = [];
  const parseLater = parserInPageOrder(read);
  const lane = async (): Promise<void> => {
    try {
      while (next <= read.totalPages) {
        const pageNumber = next++;
        parsing.push(parseLater(pageNumber, await fetchPage(pageNumber)));
      }
    } catch (error) {
      requests.stopAll(error);
      throw error;
    }
  };
  while (next <= read.totalPages) {
    await requests.all(Array.from({ length: Math.min(requests.concurrency, read.totalPages - next + 1) }, lane));
    await requests.all(parsing.splice(0));
  }
  return { pages: read.fetched, packages: read.packages };
}

function takePage(read: PagesRead, unparsed: UnparsedPage<PackageRecord>): void {
  try {
    const page = unparsed.parse();
    read.requests.stats.trackingPages++;
    read.onPage(page.data);
    read.packages += page.data.length;
    read.fetched++;
    // If the window grew meanwhile (a page reports more pages than page 1 did), the extra pages are fetched too.
    read.totalPages = Math.max(read.totalPages, page.pagination?.totalPages ?? 1);
  } catch (error) {
    // A page that cannot be read stops the others too: a window with pages missing must not pass as complete.
    read.requests.stopAll(error);
    throw error;
  }
}

/**
 * Pages are taken in page order, whatever order they come in: an order's packages are then listed
 * as the API lists them, and two runs over the same answers give the same workbook. A page waits
 * for those requested before it: a few, or longer while one of them is being retried.
 */
function parserInPageOrder(read: PagesRead): (pageNumber: number, unparsed: UnparsedPage<PackageRecord>) => Promise<void> {
  const arrived = new Map<number, UnparsedPage<PackageRecord>>();
  let nextToTake = 2;
  return (pageNumber, unparsed) => {
    const parsed = afterPendingIo().then(() => {
      if (read.requests.signal.aborted) return;
      arrived.set(pageNumber, unparsed);
      for (let page = arrived.get(nextToTake); page; page = arrived.get(nextToTake)) {
        arrived.delete(nextToTake++);
        takePage(read, page);
      }
    });
    // Awaited by the caller; marked handled now, as lanes stopped by its failure end first.
    parsed.catch(() => undefined);
    return parsed;
  };
}
