/**
 * @fastify/rate-limit's store over the ledger's attempt counters: the failed logins counted by one
 * instance count for every instance sharing the ledger, so two instances behind one address do not
 * give an attacker twice the tries.
 */
import type { AttemptCount, AttemptCounter } from '../../ledger/index.js';

type Done = (error: Error | null, result?: { current: number; ttl: number }) => void;

export function ledgerRateLimitStore(attempts: AttemptCounter, clock: () => Date) {
  const answer = (done: Done, timeWindow: number) => (counted: AttemptCount) =>
    done(null, { current: counted.count, ttl: Math.max(0, Date.parse(counted.windowStartedAt) + timeWindow - clock().getTime()) });
  return class LedgerRateLimitStore {
    incr(key: string, done: Done, timeWindow: number): void {
      attempts.count(key, timeWindow).then(answer(done, timeWindow), done);
    }

    read(key: string, done: Done, timeWindow: number): void {
      attempts.peek(key, timeWindow).then(answer(done, timeWindow), done);
    }

    child(): LedgerRateLimitStore {
      return new LedgerRateLimitStore();
    }
  };
}
