/**
 * A SendGate within one process: `limit` places, handed out in the order they were asked for. What
 * a ledger that admits one run at a time (SQLite) offers as its team-wide gate.
 */
import type { SendGate } from './types.js';

export function createLocalGate(limit: number): SendGate {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`A send gate needs at least one place, not ${limit}.`);
  let taken = 0;
  let isClosed = false;
  const waiters: { admit(): void; refuse(reason: unknown): void }[] = [];
  const release = (): (() => Promise<void>) => {
    let isHeld = true;
    return async () => {
      if (!isHeld || isClosed) return;
      isHeld = false;
      const next = waiters.shift();
      if (next) next.admit();
      else taken--;
    };
  };
  return {
    enter(signal) {
      if (isClosed) return Promise.reject(new Error('The send gate is closed.'));
      signal?.throwIfAborted();
      if (taken < limit) {
        taken++;
        return Promise.resolve(release());
      }
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(signal!.reason);
        };
        const waiter = {
          // The place of the one that left passes straight to this one: `taken` stays as it is.
          admit: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(release());
          },
          refuse: (reason: unknown) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        waiters.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      for (const waiter of waiters.splice(0)) waiter.refuse(new Error('The send gate was closed.'));
    },
  };
}

/** A gate that bounds nothing (a run with neither a share of its own nor a team cap): enter resolves at once until it is closed. */
export function createOpenGate(): SendGate {
  let isClosed = false;
  const leave = async (): Promise<void> => {};
  return {
    async enter(signal) {
      if (isClosed) throw new Error('The send gate is closed.');
      signal?.throwIfAborted();
      return leave;
    },
    async close() {
      isClosed = true;
    },
  };
}
