/**
 * Delivering one notification: a signed webhook POST, or a mail through SMTP (nodemailer). Each is
 * retried with the API client's backoff arithmetic (api/retry.ts) until it is delivered, refused for
 * good, or the bound on the whole delivery has passed.
 */
import { createHmac } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import nodemailer from 'nodemailer';
import { retrying } from '../api/retry.js';
import { describeNoticeForMail, type RunNotice } from './notice.js';

/**
 * A minute for a notification, first try and retries together: long enough to ride out a receiver's
 * restart, short enough that a cron run is not held long after its work is done.
 */
export const DEFAULT_DELIVERY_BOUND_MS = 60_000;

/** 1 s, 2 s, 4 s ... capped at 15 s: a handful of tries within the bound. */
const NOTIFY_BACKOFF = { baseMs: 1_000, maxMs: 15_000, retryAfterMaxMs: 15_000 };

/** The workbook rides along when it is smaller than this; a bigger one is named, not attached (mail servers refuse large mail). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export const SIGNATURE_HEADER = 'X-Order-Batch-Signature';

export interface DeliveryOptions {
  boundMs: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** A delivery that did not succeed: a short reason, with no secret (no URL path, no password). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly isTransient: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export async function deliverWebhook(url: string, notice: RunNotice, secret: string | undefined, options: DeliveryOptions): Promise<number> {
  const body = JSON.stringify(notice);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'order-batch' };
  if (secret) headers[SIGNATURE_HEADER] = signBody(body, secret);
  return withinBound(options, async (signal) => {
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers, body, signal, redirect: 'error' });
    } catch (error) {
      if (signal.aborted) throw new DeliveryError(`no answer within ${describeBound(options.boundMs)}`, false);
      throw new DeliveryError(`could not reach the receiver (${causeCode(error)})`, true);
    }
    await response.body?.cancel().catch(() => undefined);
    if (response.ok) return response.status;
    const isTransient = response.status === 408 || response.status === 429 || response.status >= 500;
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new DeliveryError(`the receiver answered ${response.status}`, isTransient, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
  });
}

export async function deliverMail(smtpUrl: string, to: readonly string[], notice: RunNotice, options: DeliveryOptions): Promise<void> {
  const { subject, body } = describeNoticeForMail(notice);
  const attachments = await attachmentsOf(notice.files);
  const from = fromAddressOf(smtpUrl);
  await withinBound(options, async (signal) => {
    // Per try: at most what is left of the bound, so a server that never answers cannot hold the run.
    const timeoutMs = Math.max(1_000, Math.min(20_000, options.boundMs));
    const transport = nodemailer.createTransport(smtpUrl, { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs } as never);
    const closeOnAbort = () => transport.close();
    signal.addEventListener('abort', closeOnAbort, { once: true });
    try {
      await transport.sendMail({ from, to: [...to], subject, text: body, attachments });
    } catch (error) {
      if (signal.aborted) throw new DeliveryError(`no answer within ${describeBound(options.boundMs)}`, false);
      const responseCode = (error as { responseCode?: number }).responseCode;
      if (responseCode !== undefined) throw new DeliveryError(`the mail server answered ${responseCode}`, responseCode < 500);
      throw new DeliveryError(`could not reach the mail server (${causeCode(error)})`, true);
    } finally {
      signal.removeEventListener('abort', closeOnAbort);
      transport.close();
    }
  });
}

async function withinBound<T>(options: DeliveryOptions, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.boundMs);
  timer.unref();
  try {
    return await retrying(() => attempt(deadline.signal), {
      maxAttempts: Number.MAX_SAFE_INTEGER,
      policy: NOTIFY_BACKOFF,
      shouldRetry: (error) => error instanceof DeliveryError && error.isTransient,
      signal: deadline.signal,
      isObserved: false,
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
  } finally {
    clearTimeout(timer);
  }
}

/** The result workbooks, as long as together they stay under the size a mail server takes. */
async function attachmentsOf(files: readonly string[]): Promise<{ filename: string; path: string }[]> {
  const attachments: { filename: string; path: string }[] = [];
  let total = 0;
  for (const path of files.filter((f) => /\.xlsx$/i.test(f))) {
    const size = await stat(path).then((s) => s.size, () => undefined);
    if (size === undefined || total + size > MAX_ATTACHMENT_BYTES) continue;
    total += size;
    attachments.push({ filename: basename(path), path });
  }
  return attachments;
}

/** From the SMTP account's own name when it is an address, else order-batch at the server's host. */
function fromAddressOf(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const user = decodeURIComponent(url.username);
  return user.includes('@') ? user : `order-batch@${url.hostname.replace(/^\[|\]$/g, '') || 'localhost'}`;
}

function causeCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as { code?: string }).code ?? 'network error';
}

function describeBound(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}
