/** Shared test fixtures for the sandbox: a started sandbox on a frozen clock, an HTTP helper (orders: test/support/order-payload.ts). */
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

/** The orderDate of an order placed an hour before `ms` (the sandbox accepts no order from its future). */
export function hourBefore(ms: number): string {
  return new Date(ms - HOUR).toISOString();
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
