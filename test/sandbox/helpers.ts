/** Shared test fixtures for the sandbox: a started sandbox on a frozen clock, an HTTP helper, order builders. */
import { request } from 'undici';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

/** Any fixed instant works: the sandbox clock is injected, so tests never read the wall clock. */
export const START = '2031-03-10T15:00:00.000Z';
export const START_MS = Date.parse(START);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface Reply<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface TestSandbox extends SandboxHandle {
  call<T = any>(method: string, path: string, options?: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: string }): Promise<Reply<T>>;
  /** A fresh read-write token (the sandbox clock may have moved past the last one's expiry). */
  token(): Promise<string>;
  readToken(): Promise<string>;
  /** POST an order with a fresh token. */
  create(payload: unknown): Promise<Reply>;
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ startTime: START, freezeClock: true, seed: 42, ...options });
  const call = async (method: string, path: string, o: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: string } = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await request(`${sandbox.url}${path}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (e.g. an empty HEAD answer): keep the text.
    }
    return { status: res.statusCode, headers: res.headers, body: parsed as any, text };
  };
  const tokenFor = async (clientId: string, secret: string) => {
    const res = await call('POST', '/api/v0/auth/getToken', { body: { clientId, secret } });
    if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
    return res.body.token as string;
  };
  const token = () => tokenFor(sandbox.clientId, sandbox.clientSecret);
  return Object.assign(sandbox, {
    call,
    token,
    readToken: () => tokenFor(sandbox.readOnlyClient.clientId, sandbox.readOnlyClient.clientSecret),
    create: async (payload: unknown) => call('POST', '/api/v0/orders', { body: payload, token: await token() }),
  });
}

export interface LineSpec {
  productId?: string;
  customerLineItemId?: string;
  quantity?: number;
  unitPrice?: number;
  discount?: number;
}

/** A valid order at `nowMs` (orderDate one hour earlier), totals computed in cents. */
export function buildOrder(id: string, options: { lines?: LineSpec[]; nowMs?: number; carrierId?: string; salesTax?: number } = {}) {
  const lines = (options.lines ?? [{}]).map((l, i) => ({
    productId: l.productId ?? 'PRD-1001',
    customerLineItemId: l.customerLineItemId ?? `L${i + 1}`,
    name: `Item ${i + 1}`,
    quantity: l.quantity ?? 1,
    unitPrice: l.unitPrice ?? 12.5,
    ...(l.discount === undefined ? {} : { discount: l.discount }),
  }));
  const cents = (n: number) => Math.round(n * 100);
  const subCents = lines.reduce((s, l) => s + cents(l.unitPrice) * l.quantity, 0);
  const discountCents = lines.reduce((s, l) => s + cents(l.discount ?? 0) * l.quantity, 0);
  const taxCents = cents(options.salesTax ?? 1.25);
  return {
    customerDetails: {
      shippingAddress: {
        fullName: 'Ada Lovelace',
        email: 'ada@example.com',
        addressLines: ['12 Analytical Way', 'Suite 3'],
        city: 'Springfield',
        provinceOrState: 'IL',
        postalOrZipCode: '62701',
        countryCode: 'US',
        phone: '(217) 555-0142',
      },
    },
    orderDetails: {
      customerOrderId: id,
      marketplaceOrderId: `MP-${id}`,
      orderDate: new Date((options.nowMs ?? START_MS) - HOUR).toISOString(),
      sourceOfSale: 'OtherMarketplace',
      lineItems: lines,
      ...(discountCents > 0 ? { discountTotal: discountCents / 100 } : {}),
      subTotal: subCents / 100,
      salesTax: taxCents / 100,
      grandTotal: (subCents + taxCents) / 100,
    },
    ...(options.carrierId ? { orderShippingDetails: { carrierId: options.carrierId } } : {}),
  };
}

/** Deep-sets `path` (dot/bracket notation) on a copy of `value`; `undefined` deletes the key. */
export function withField<T>(value: T, path: string, replacement: unknown): T {
  const copy = structuredClone(value) as any;
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let target = copy;
  for (const k of keys.slice(0, -1)) target = target[k];
  const last = keys.at(-1)!;
  if (replacement === undefined) delete target[last];
  else target[last] = replacement;
  return copy;
}
