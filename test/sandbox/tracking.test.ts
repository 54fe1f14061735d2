import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, hourBefore, START_MS, startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

let sb: TestSandbox;
let token: string;
let lateFrom: string;
beforeAll(async () => {
  // High trouble rates so splits and replacements show up in a small set.
  sb = await startTestSandbox({ rates: { split: 0.5, replace: 0.5, cancel: 0.1 } });
  for (let i = 0; i < 20; i++) expect((await sb.create(buildOrderPayload(`T-${i}`, { lines: [{ quantity: 2 }, { productId: 'PRD-1005' }] }))).status).toBe(201);
  sb.advanceClock(1);
  lateFrom = sb.now().toISOString();
  for (let i = 0; i < 5; i++) expect((await sb.create(buildOrderPayload(`LATE-${i}`, { orderDate: hourBefore(sb.now().getTime()) }))).status).toBe(201);
  sb.advanceClock(24 * 12);
  token = await sb.token();
});
afterAll(() => sb.close());

const get = (path: string) => sb.call('GET', path, { token });
const iso = (ms: number) => new Date(ms).toISOString();

async function allPackages(): Promise<any[]> {
  const res = await get('/api/v0/shipments/tracking-updates?hours=720');
  expect(res.status).toBe(200);
  return res.body.data;
}

function expectedLastUpdated(pkg: any): string {
  const times = pkg.trackingDetail.trackingEvents.map((e: any) => Date.parse(e.eventTimestamp));
  if (pkg.dateReplaced) times.push(Date.parse(pkg.dateReplaced));
  return iso(Math.max(...times));
}

describe('tracking updates by hours', () => {
  it('returns every package updated in the last 720 hours, lastUpdated being its latest event or replacement', async () => {
    const packages = await allPackages();
    expect(packages.length).toBeGreaterThan(25);
    for (const p of packages) {
      expect(p.lastUpdated).toBe(expectedLastUpdated(p));
      expect(Date.parse(p.lastUpdated)).toBeLessThanOrEqual(sb.now().getTime());
    }
    expect(packages.some((p) => p.dateReplaced && p.replacedByPackageId)).toBe(true);
  });

  it('agrees with the packages of each order', async () => {
    const packages = await allPackages();
    const perOrder = (await Promise.all(['T-0', 'T-1', 'LATE-0'].map((id) => get(`/api/v0/orders/${id}/packages`)))).flatMap((r) => r.body.data);
    for (const p of perOrder) expect(packages).toContainEqual(p);
  });

  it('returns only packages updated within the window for a small hours value', async () => {
    const now = sb.now().getTime();
    for (const hours of [1, 24, 72]) {
      const expected = (await allPackages()).filter((p) => Date.parse(p.lastUpdated) > now - hours * HOUR).map((p) => p.packageId);
      const res = await get(`/api/v0/shipments/tracking-updates?hours=${hours}`);
      expect(res.body.data.map((p: any) => p.packageId)).toEqual(expected);
    }
  });

  it('answers 400 to hours outside 1..720', async () => {
    expect((await get('/api/v0/shipments/tracking-updates?hours=720')).status).toBe(200);
    for (const v of ['721', '0', '-5', '2.5', 'x']) {
      const res = await get(`/api/v0/shipments/tracking-updates?hours=${v}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe('hours');
    }
  });
});

describe('pagination', () => {
  it('pages with pageNumber and itemsPerPage, totalPages covering everything once', async () => {
    const all = (await allPackages()).map((p) => p.packageId);
    const first = await get('/api/v0/shipments/tracking-updates?hours=720&pageNumber=1&itemsPerPage=7');
    const totalPages = first.body.pagination.totalPages;
    expect(totalPages).toBe(Math.ceil(all.length / 7));
    const seen: string[] = [];
    for (let page = 1; page <= totalPages; page++) {
      const res = await get(`/api/v0/shipments/tracking-updates?hours=720&pageNumber=${page}&itemsPerPage=7`);
      expect(res.body.pagination).toEqual({ page, totalPages });
      seen.push(...res.body.data.map((p: any) => p.packageId));
    }
    expect(seen).toEqual(all);
    const beyond = await get(`/api/v0/shipments/tracking-updates?hours=720&pageNumber=${totalPages + 1}&itemsPerPage=7`);
    expect(beyond.body.data).toEqual([]);
  });

  it('paginates when only one of the two is given, and not at all when neither is', async () => {
    expect((await get('/api/v0/shipments/tracking-updates?hours=720&pageNumber=1')).body.pagination).toEqual({ page: 1, totalPages: 1 });
    expect((await get('/api/v0/shipments/tracking-updates?hours=720&itemsPerPage=5')).body.pagination.page).toBe(1);
    expect((await get('/api/v0/shipments/tracking-updates?hours=720')).body.pagination).toBeUndefined();
  });

  it('answers a page asked for again (kept from the second time on) exactly as the first time, each with its own requestId', async () => {
    const path = '/api/v0/shipments/tracking-updates?hours=719&pageNumber=2&itemsPerPage=6';
    const answers = [await get(path), await get(path), await get(path), await sb.call('GET', path, { token, headers: { accept: 'text/plain' } })];
    const [first] = answers;
    expect(first!.body.data.length).toBe(6);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      const { requestId, ...rest } = JSON.parse(res.text);
      expect(requestId).toBe(res.headers['x-request-id']);
      expect(rest).toEqual({ data: first!.body.data, pagination: first!.body.pagination });
    }
    expect(new Set(answers.map((r) => r.body.requestId)).size).toBe(answers.length);
    expect(answers.map((r) => String(r.headers['content-type']))).toEqual([
      'application/json; charset=utf-8',
      'application/json; charset=utf-8',
      'application/json; charset=utf-8',
      'text/plain; charset=utf-8',
    ]);
  });

  it('answers 400 to itemsPerPage over 100 and pageNumber under 1, and takes 100', async () => {
    expect((await get('/api/v0/shipments/tracking-updates?hours=720&itemsPerPage=100')).status).toBe(200);
    expect((await get('/api/v0/shipments/tracking-updates?hours=720&itemsPerPage=101')).status).toBe(400);
    expect((await get('/api/v0/shipments/tracking-updates?hours=720&itemsPerPage=0')).status).toBe(400);
    expect((await get('/api/v0/shipments/tracking-updates?hours=720&pageNumber=0')).status).toBe(400);
  });
});

describe('tracking updates in a period (searchBy)', () => {
  const period = (searchBy: string | null, start: string, end: string) =>
    get(`/api/v0/shipments/tracking-updates?${searchBy ? `searchBy=${searchBy}&` : ''}startDate=${encodeURIComponent(start)}&endDate=${encodeURIComponent(end)}`);

  it('searchBy=updated (the default) selects by lastUpdated, bounds included', async () => {
    const all = await allPackages();
    const target = all[3];
    for (const searchBy of [null, 'updated']) {
      const res = await period(searchBy, target.lastUpdated, target.lastUpdated);
      expect(res.status).toBe(200);
      expect(res.body.data.map((p: any) => p.packageId)).toContain(target.packageId);
      for (const p of res.body.data) expect(p.lastUpdated).toBe(target.lastUpdated);
    }
  });

  it('searchBy=created selects the packages of orders created in the period', async () => {
    const res = await period('created', lateFrom, iso(Date.parse(lateFrom) + HOUR));
    const expected = (await allPackages()).filter((p) => p.customerOrderId.startsWith('LATE-')).map((p) => p.packageId);
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.data.map((p: any) => p.packageId).sort()).toEqual(expected.sort());
    const early = await period('created', iso(START_MS - HOUR), iso(START_MS));
    expect(early.body.data.every((p: any) => p.customerOrderId.startsWith('T-'))).toBe(true);
  });

  it('searchBy=replaced selects packages whose dateReplaced is in the period', async () => {
    const replaced = (await allPackages()).filter((p) => p.dateReplaced);
    const res = await period('replaced', iso(START_MS), sb.now().toISOString());
    expect(res.body.data.map((p: any) => p.packageId).sort()).toEqual(replaced.map((p) => p.packageId).sort());
  });

  it('accepts offsets other than Z', async () => {
    const res = await period('updated', '2031-03-10T10:00:00-05:00', '2031-12-31T00:00:00+01:00');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
  });

  it('answers 400 to a missing bound, a date without offset, start after end, an unknown searchBy, or hours with dates', async () => {
    const s = encodeURIComponent('2031-03-10T00:00:00Z');
    const e = encodeURIComponent('2031-03-20T00:00:00Z');
    for (const q of [
      `startDate=${s}`,
      `endDate=${e}`,
      `startDate=2031-03-10T00:00:00&endDate=${e}`,
      `startDate=2031-03-10&endDate=${e}`,
      `startDate=${e}&endDate=${s}`,
      `searchBy=shipped&startDate=${s}&endDate=${e}`,
      `hours=5&startDate=${s}&endDate=${e}`,
      '',
      'hours=5&hours=6',
      'hours=5&color=red',
    ]) {
      const res = await get(`/api/v0/shipments/tracking-updates?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.message).toEqual(expect.any(String));
    }
  });
});

describe('packages of one order', () => {
  it('answers 404 for an unknown order and pages on request', async () => {
    expect((await get('/api/v0/orders/NOPE/packages')).status).toBe(404);
    const res = await get('/api/v0/orders/T-0/packages?pageNumber=1&itemsPerPage=1');
    expect(res.body.data).toHaveLength(1);
    expect(res.body.pagination.page).toBe(1);
    expect((await get('/api/v0/orders/T-0/packages?itemsPerPage=101')).status).toBe(400);
  });
});
