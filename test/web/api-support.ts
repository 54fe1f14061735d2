/** Driving the HTTP API as another system would: plain HTTP with a bearer token, and tokens made in the ledger. */
import { FormData, request } from 'undici';
import { createToken } from '../../src/accounts/tokens.js';
import { openLedger } from '../../src/ledger/index.js';

export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  body: unknown;
  bytes: Buffer;
}

/** Makes a token for the account in the ledger, as `order-batch tokens create` does. */
export async function makeToken(ledgerPath: string, userName: string, label: string, expires?: string): Promise<string> {
  const ledger = await openLedger(ledgerPath);
  try {
    const made = await createToken(ledger, { name: 'test-admin', via: 'cli', address: null }, { userName, label, ...(expires ? { expires } : {}) }, new Date());
    if (!made.ok) throw new Error(made.message);
    return made.value.token;
  } finally {
    await ledger.close();
  }
}

export async function callApi(base: string, method: 'GET' | 'POST', path: string, options: { token?: string; body?: FormData | string; headers?: Record<string, string> } = {}): Promise<ApiAnswer> {
  const response = await request(`${base}${path}`, {
    method,
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const contentType = String(response.headers['content-type'] ?? '');
  const isJson = /json/.test(contentType);
  return { status: response.statusCode, headers: response.headers, contentType, body: isJson && bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : undefined, bytes };
}

export function sheetForm(fileName: string, content: Buffer | string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([content]), fileName);
  return form;
}

/** Asks `path` until `isDone` says so (at most `tries` times, a short pause between); 202 (still at work) is asked again too. */
export async function pollUntil(base: string, path: string, token: string, isDone: (body: { state?: string }) => boolean, tries = 600): Promise<ApiAnswer> {
  for (let i = 0; i < tries; i++) {
    const answer = await callApi(base, 'GET', path, { token });
    if ((answer.status !== 200 && answer.status !== 202) || isDone(answer.body as { state?: string })) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} did not get there in ${tries} tries`);
}

/** A reconciliation or job that has ended (neither queued nor running). */
export const hasEnded = (body: { state?: string }): boolean => body.state !== 'queued' && body.state !== 'running';
