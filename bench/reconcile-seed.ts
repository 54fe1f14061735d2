/**
 * The reconcile bench's world (reconcile.ts): orders created in the sandbox and recorded as accepted
 * in the ledger, without latency, before anything is timed. One or two lines of 3 to 5 units, every
 * shipment split into 2 or 3 packages (about 40,000 orders for 100,000 packages); the sandbox's clock
 * moved on so that they ship, and every page and the orders' list read once so that the timed run
 * meets an API that answers in its latency, not the sandbox's cold start.
 */
import type { Pool } from 'undici';
import type { CreateOrderPayload } from '../src/contract/schemas.js';
import type { Ledger } from '../src/ledger/types.js';
import type { SandboxInfo } from './reconcile-servers.js';

export const PAGE_SIZE = 100;
/** Orders created (and recorded in the ledger) per batch while seeding: the bench's own memory stays small. */
const SEED_BATCH = 5_000;
export const SEED_CONCURRENCY = 32;

export interface SeededWorld {
  /** A token of the sandbox's current clock. */
  headers: Record<string, string>;
  /** The sandbox's time when the first order was created. */
  firstOrderMs: number;
  /** The sandbox's time now. */
  nowMs: number;
}

function benchPayload(n: number, orderDate: string): CreateOrderPayload {
  const lineItems = Array.from({ length: 1 + (n % 2) }, (_, i) => ({
    productId: `PRD-${1001 + ((n * 2 + i) % 20)}`,
    customerLineItemId: `L${i + 1}`,
    name: `Bench item ${i + 1}`,
    quantity: 3 + ((n + i) % 3),
    unitPrice: 9.99,
  }));
  const subTotal = Math.round(lineItems.reduce((s, l) => s + l.unitPrice * 100 * l.quantity, 0)) / 100;
  return {
    customerDetails: { shippingAddress: { fullName: 'Bench Buyer', addressLines: ['1 Loop Road'], city: 'Localhost', provinceOrState: 'CA', postalOrZipCode: '94000', countryCode: 'US', phone: '415-555-0100' } },
    orderDetails: {
      customerOrderId: `RB-${String(n).padStart(6, '0')}`,
      marketplaceOrderId: `MP-${n}`,
      orderDate,
      sourceOfSale: 'OtherMarketplace',
      lineItems,
      subTotal,
      salesTax: 0.8,
      grandTotal: Math.round(subTotal * 100 + 80) / 100,
    },
    orderShippingDetails: { carrierId: 'CarrierXGround' },
  };
}

export async function control(pool: Pool, path: string, body: unknown): Promise<void> {
  const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`bench setup: ${path} answered ${res.statusCode}: ${text}`);
}

/** Tracking page `n` of the last 30 days, as the sandbox sends it. */
export async function trackingPageText(pool: Pool, headers: Record<string, string>, n: number): Promise<string> {
  const res = await pool.request({ method: 'GET', path: `/api/v0/shipments/tracking-updates?hours=720&pageNumber=${n}&itemsPerPage=${PAGE_SIZE}`, headers });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`bench setup: tracking updates answered ${res.statusCode}: ${text}`);
  return text;
}

async function countPackages(pool: Pool, headers: Record<string, string>, isWarming = false): Promise<number> {
  const page = async (n: number) => JSON.parse(await trackingPageText(pool, headers, n)) as { data: unknown[]; pagination?: { totalPages: number } };
  const totalPages = (await page(1)).pagination?.totalPages ?? 1;
  if (isWarming) for (let n = 2; n < totalPages; n++) await page(n);
  return (totalPages - 1) * PAGE_SIZE + (await page(totalPages)).data.length;
}

/** Creates orders until the sandbox holds about `packages` packages (see the header). */
export async function seedOrders({ pool, info, ledger, packages }: { pool: Pool; info: SandboxInfo; ledger: Ledger; packages: number }): Promise<SeededWorld> {
  // Tokens expire on the simulated clock: a fresh one after each move.
  let headers: Record<string, string> = {};
  const refreshToken = async () => {
    const res = await pool.request({
      method: 'POST',
      path: '/api/v0/auth/getToken',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: info.clientId, secret: info.clientSecret }),
    });
    const { token } = (await res.body.json()) as { token: string };
    headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  };
  await refreshToken();

  // Seed: a probe batch tells how many packages an order makes; then enough orders for the target.
  let simulatedNowMs = info.nowMs;
  const firstOrderMs = simulatedNowMs;
  const run = await ledger.startRun({ command: 'bench', files: [] });
  let created = 0;
  const createBatch = async (total: number): Promise<void> => {
    for (let done = 0; done < total; done += SEED_BATCH) await createOrders(Math.min(SEED_BATCH, total - done));
  };
  const createOrders = async (count: number): Promise<void> => {
    const orderDate = new Date(simulatedNowMs).toISOString();
    const payloads = Array.from({ length: count }, (_, i) => benchPayload(created + i, orderDate));
    created += count;
    await run.recordIntents(payloads.map((payload) => ({ payload })));
    let next = 0;
    const worker = async () => {
      while (next < payloads.length) {
        const p = payloads[next++]!;
        const res = await pool.request({ method: 'POST', path: '/api/v0/orders', headers, body: JSON.stringify(p) });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`bench setup: create answered ${res.statusCode}: ${text}`);
        const id = p.orderDetails.customerOrderId;
        await run.markSending(id);
        await run.markAccepted(id, { submittedAt: new Date(simulatedNowMs) });
      }
    };
    await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  };
  const advance = async (hours: number) => {
    await control(pool, '/sandbox/clock', { advanceHours: hours });
    simulatedNowMs += hours * 3_600_000;
    await refreshToken();
  };
  const probe = 300;
  await createBatch(probe);
  await advance(48);
  const perOrder = Math.max(1, (await countPackages(pool, headers)) / probe);
  await createBatch(Math.max(0, Math.ceil(packages / perOrder) - probe));
  await advance(48);
  // The sandbox plans fulfillment lazily and caches each package's JSON: one pass over every page
  // now, so the timed run meets an API that answers in its latency, not the sandbox's cold start.
  const total = await countPackages(pool, headers, true);
  // Likewise the orders' JSON, which list orders (one request of the run, every order in it) is built from.
  const listed = await pool.request({ method: 'GET', path: '/api/v0/orders?lastDays=30&orderDisposition=all', headers });
  // Read to its end and dropped: a million orders' answer is not held by the bench either.
  for await (const chunk of listed.body) void chunk;
  await run.finish({ summary: { created, packages: total } });
  return { headers, firstOrderMs, nowMs: simulatedNowMs };
}
