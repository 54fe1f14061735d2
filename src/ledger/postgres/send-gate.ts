/**
 * The team's concurrency cap (`--team-concurrency N`): N places shared by every run on one PostgreSQL
 * ledger, each a session advisory lock (key: the ledger's schema, place number) held on one
 * connection of this process's own. A process that dies loses its connection, and PostgreSQL drops
 * its locks with it: a killed run frees its places without anyone cleaning up.
 *
 * Taking a place is one query that tries the places from a random one on and stops at the first it
 * gets. When all are taken, the waiter tries again when this process gives one back, or after a
 * short pause (another process may have given one back), growing to POLL_MAX_MS.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { SendGate } from '../types.js';

/** First key of the team's advisory locks is hashtext('order-batch team ' || schema); the second is the place. */
/**
 * A session may take a lock it holds once more, so the places this process holds ($3) are skipped
 * first: CASE keeps the planner from trying the lock before that test.
 */
const TAKE = `SELECT place FROM (SELECT ($2::int + s) % $1::int AS place FROM generate_series(0, $1::int - 1) s) p
  WHERE CASE WHEN place = ANY($3::int[]) THEN false
    ELSE pg_try_advisory_lock(hashtext('order-batch team ' || current_schema()), place) END
  LIMIT 1`;
const GIVE = `SELECT pg_advisory_unlock(hashtext('order-batch team ' || current_schema()), $1::int)`;
const POLL_MIN_MS = 2;
const POLL_MAX_MS = 50;

export async function openPostgresSendGate(config: pg.ClientConfig, limit: number, onError: (error: unknown) => Error): Promise<SendGate> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`A send gate needs 1 place or more, not ${limit}.`);
  const client = new pg.Client({ ...config, application_name: 'order-batch team gate' });
  // An idle connection's failure is reported by the next query; without a listener it would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw onError(error);
  }
  let closed = false;
  const held = new Set<number>();
  // One query at a time on the gate's connection, in the order asked (node-postgres queues them
  // itself, but that is deprecated).
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  let wake: (() => void) | undefined;
  const wakeWaiters = () => {
    wake?.();
    wake = undefined;
  };

  async function take(): Promise<number | null> {
    // The places held are read, and the one taken added, inside the turn of the connection.
    return serial(async () => {
      if (held.size >= limit) return null;
      const { rows } = await client.query<{ place: number }>(TAKE, [limit, Math.floor(Math.random() * limit), [...held]]);
      const place = rows[0]?.place ?? null;
      if (place !== null) held.add(place);
      return place;
    });
  }

  return {
    async enter(signal?: AbortSignal) {
      let pause = POLL_MIN_MS;
      for (;;) {
        signal?.throwIfAborted();
        if (closed) throw new Error('The send gate is closed.');
        let place: number | null;
        try {
          place = await take();
        } catch (error) {
          throw onError(error);
        }
        if (place !== null) {
          let isHeld = true;
          return async () => {
            if (!isHeld) return;
            isHeld = false;
            try {
              if (!closed) await serial(() => client.query(GIVE, [place]));
            } catch (error) {
              throw onError(error);
            } finally {
              held.delete(place);
              wakeWaiters();
            }
          };
        }
        if (signal?.aborted) throw signal.reason;
        const woken = new Promise<void>((resolve) => {
          const previous = wake;
          wake = () => {
            previous?.();
            resolve();
          };
        });
        // The signal is read each turn rather than listened to: a run's waiters would each add a
        // listener to it (and Node warns past ten); a pause is short enough to notice an abort.
        await Promise.race([woken, sleep(pause * (0.5 + Math.random()))]);
        pause = Math.min(POLL_MAX_MS, pause * 2);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      wakeWaiters();
      // Ending the session drops every lock it holds.
      await client.end().catch(() => undefined);
    },
  };
}
