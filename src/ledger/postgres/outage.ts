/**
 * Riding through a database outage (a restart, a managed failover): a query or a transaction that
 * meets a lost connection is tried again, with growing pauses, until the database answers or the
 * outage has lasted `outageMs` (--ledger-outage); then the failure is the run's, as before (exit 3).
 * A write that has not succeeded blocks whoever waits for it: the intent recorded before each POST
 * is such a write, so no order is sent while the ledger cannot record it. Every caller shares one
 * outage clock: the bound is on the outage, not on each query.
 */
import { backoffDelayMs } from '../../api/retry.js';
import type { Logger } from '../../log.js';
import { reportLedgerOutage } from '../error-observers.js';

/** 250 ms, 500 ms, 1 s ... capped at 5 s: back within seconds of the database, without hammering it while it starts. */
const RECONNECT_BACKOFF = { baseMs: 250, maxMs: 5_000 };

/** Errors of a connection lost or refused, not of the work itself (a constraint, a syntax error, a full disk). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT', '57P01', '57P02', '57P03']);
const CONNECTION_MESSAGE = /Connection terminated|connection timeout|Client has encountered a connection error|Connection ended|not queryable|the database system is (starting up|shutting down|in recovery)/i;

export function isConnectionLoss(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_MESSAGE.test(message)) return true;
  }
  return false;
}

export interface OutageRiderOptions {
  outageMs: number;
  logger: Logger;
  location: string;
  monotonicNow?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class OutageRider {
  private since: number | undefined;
  private readonly monotonicNow: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: OutageRiderOptions) {
    this.monotonicNow = options.monotonicNow ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Whether the database is unreachable now, as the last queries found it. */
  get isOut(): boolean {
    return this.since !== undefined;
  }

  async ride<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await work();
        if (this.since !== undefined) {
          this.options.logger.info({ ledger: this.options.location, seconds: Math.round((this.monotonicNow() - this.since) / 1000) }, 'the ledger answers again: the run goes on');
          this.since = undefined;
        }
        return result;
      } catch (error) {
        if (this.options.outageMs <= 0 || !isConnectionLoss(error)) throw error;
        const now = this.monotonicNow();
        if (this.since === undefined) {
          this.since = now;
          reportLedgerOutage();
          this.options.logger.warn({ ledger: this.options.location, err: (error as Error).message, waitSeconds: this.options.outageMs / 1000 }, 'the ledger does not answer: sending paused while it reconnects');
        }
        if (now - this.since >= this.options.outageMs) throw error;
        const left = this.options.outageMs - (now - this.since);
        await this.sleep(Math.min(left, Math.max(50, backoffDelayMs(attempt, RECONNECT_BACKOFF, this.options.random ?? Math.random))));
      }
    }
  }
}
