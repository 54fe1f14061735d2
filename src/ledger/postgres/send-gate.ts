/**
 * The team's concurrency cap on a PostgreSQL ledger (team-cap.ts): the cap stored in the ledger's
 * settings is N places shared by every run on the ledger, each a session advisory lock (key: the
 * ledger's schema, place number) held on one connection of this process's own. A process that dies
 * loses its connection, and PostgreSQL drops its locks with it: a killed run frees its places
 * without anyone cleaning up.
 *
 * Taking a place is one query that reads the cap and tries the places below it from a random one on,
 * stopping at the first it gets: a cap lowered or raised while runs go applies to the next place any
 * of them takes, at no cost of its own. Places above a lowered cap are given back as their POSTs end
 * and never taken again; until they all are, no place is taken (see TAKE's $4), so the team's POSTs
 * in flight never exceed a lowered cap once the POSTs that were in flight when it was lowered end. When all are taken, the waiter tries again when this process gives one back,
 * or after a short pause (another process may have given one back), growing to POLL_MAX_MS.
 *
 * With no cap stored, a run that gives `--team-concurrency N` takes its places among N, the same
 * places every other run giving a value takes: those runs together keep within the largest value any
 * of them gives, as the flag promises, while runs that give none are not held (the run warns, naming
 * `ledger set`). A run giving no value lets every POST through and looks again every CAP_REREAD_MS;
 * its connection is opened only once there is a cap. The run's own share is also a local gate in
 * front of the team's places.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createLocalGate } from '../local-gate.js';
import { CAP_REREAD_MS, MAX_TEAM_CAP, TEAM_CAP_SETTING } from '../team-cap.js';
import type { SendGate, SendGateOptions } from '../types.js';

/**
 * $1 the setting's name, $5 the cap when none is stored (the run's own value, or null), $2 a random number in [0, 1) (where the search starts), $3 the places this
 * process holds, $4 whether places at or above the cap may still be held (the cap was lowered, or
 * this gate has just opened): then none is taken while any is, so the team's POSTs in flight come
 * down to a lowered cap before another starts. Reading pg_locks takes the lock manager's locks, so it
 * is done only until the first time it finds none held. The cap is read as parseTeamCap reads it (nested CASEs: the cast only of digits).
 * A session may take a lock it holds once more, so the places held are skipped first: CASE keeps the
 * planner from trying the lock before that test. The first key of the team's advisory locks is
 * hashtext('order-batch team ' || schema); the second is the place.
 */
const TAKE = `WITH stored AS (
    SELECT (SELECT CASE WHEN value ~ '^[0-9]{1,4}$' THEN CASE WHEN value::int BETWEEN 1 AND ${MAX_TEAM_CAP} THEN value::int END END
      FROM settings WHERE name = $1) AS n
  ), cap AS (
    SELECT COALESCE(stored.n, $5::int) AS n, stored.n AS stored FROM stored
  ), drain AS (
    SELECT $4::bool AND cap.n IS NOT NULL AND EXISTS (
      SELECT 1 FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = hashtext('order-batch team ' || current_schema())::oid AND l.objid >= cap.n::oid) AS busy
    FROM cap
  )
  SELECT cap.n AS cap, cap.stored AS stored, drain.busy AS draining,
    CASE WHEN cap.n IS NULL OR drain.busy OR cardinality($3::int[]) >= cap.n THEN NULL ELSE (
      SELECT place FROM (SELECT (floor($2::float8 * cap.n)::int + s) % cap.n AS place FROM generate_series(0, cap.n - 1) s) p
      WHERE CASE WHEN place = ANY($3::int[]) THEN false
        ELSE pg_try_advisory_lock(hashtext('order-batch team ' || current_schema()), place) END
      LIMIT 1) END AS place
  FROM cap, drain`;
const GIVE = `SELECT pg_advisory_unlock(hashtext('order-batch team ' || current_schema()), $1::int)`;
const POLL_MIN_MS = 2;
const POLL_MAX_MS = 50;

export interface PostgresSendGateOptions extends SendGateOptions {
  config: pg.ClientConfig;
  /** The cap the ledger's settings hold now (through the ledger's pool; its errors are the ledger's). */
  readCap: () => Promise<number | null>;
  /** Monotonic ms: when to look again for a cap while there is none. */
  clock: () => number;
  onError: (error: unknown) => Error;
}

type Leave = () => Promise<void>;
interface Taken {
  /** The cap in force: the stored one, or else the run's own value. */
  cap: number | null;
  /** The cap the ledger's settings hold. */
  stored: number | null;
  place: number | null;
  draining: boolean;
}
const passThrough: Leave = async () => {};

/** The team's places: the connection that holds their locks, opened on first use. */
interface TeamPlaces {
  /**
   * Reads the cap and takes a place below it if one is free: null when none is (or there is no cap).
   * With `checkAbove`, none while places at or above the cap are held (`draining`).
   */
  take(checkAbove: boolean): Promise<Taken>;
  give(place: number): Promise<void>;
  close(): Promise<void>;
}

async function connectPlaces(config: pg.ClientConfig, unstoredCap: number | null): Promise<TeamPlaces> {
  const client = new pg.Client({ ...config, application_name: 'order-batch team gate' });
  // An idle connection's failure is reported by the next query; without a listener it would crash the process.
  client.on('error', () => undefined);
  await client.connect();
  const held = new Set<number>();
  // One query at a time on the gate's connection, in the order asked (node-postgres queues them
  // itself, but that is deprecated). The places held are read, and the one taken added, inside its turn.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    take: (checkAbove) =>
      serial(async () => {
        const { rows } = await client.query<Taken>(TAKE, [TEAM_CAP_SETTING, Math.random(), [...held], checkAbove, unstoredCap]);
        const { cap = null, stored = null, place = null, draining = false } = rows[0] ?? {};
        if (place !== null) held.add(place);
        return { cap, stored, place, draining };
      }),
    give: (place) =>
      serial(async () => {
        try {
          await client.query(GIVE, [place]);
        } finally {
          held.delete(place);
        }
      }),
    // Ending the session drops every lock it holds.
    close: () => client.end().catch(() => undefined),
  };
}

/** The cap as a gate knows it: the stored one (else the run's own value), when it was last read, whether places above it may be held. */
interface CapView {
  cap: number | null;
  stored: number | null;
  readAt: number;
  mayBeAbove: boolean;
  /** The cap the ledger's settings hold now, as just read. */
  note(nextStored: number | null): void;
}

function watchCap(options: PostgresSendGateOptions, initial: number | null): CapView {
  const unstoredCap = options.share ?? null;
  options.onCap?.(initial);
  const view: CapView = {
    stored: initial,
    cap: initial ?? unstoredCap,
    readAt: options.clock(),
    // Places at or above a stored cap may be held: by runs that took them under a higher cap, before
    // this gate opened or since. Without a stored cap, runs giving different values of their own hold
    // places up to their own value by right, so none waits for the others' places to empty.
    mayBeAbove: initial !== null,
    note(nextStored) {
      view.readAt = options.clock();
      if (nextStored !== view.stored) {
        view.stored = nextStored;
        options.onCap?.(nextStored);
      }
      const next = nextStored ?? unstoredCap;
      if (next === view.cap) return;
      if (nextStored !== null && (view.cap === null || nextStored < view.cap)) view.mayBeAbove = true;
      view.cap = next;
    },
  };
  return view;
}

/** Waiters for a place: woken when this process gives one back, or after a short pause. */
function createWaker(): { wakeAll(): void; wait(pauseMs: number): Promise<void> } {
  let wake: (() => void) | undefined;
  return {
    wakeAll() {
      wake?.();
      wake = undefined;
    },
    async wait(pauseMs) {
      const woken = new Promise<void>((resolve) => {
        const previous = wake;
        wake = () => {
          previous?.();
          resolve();
        };
      });
      // The signal is read each turn rather than listened to: a run's waiters would each add a
      // listener to it (and Node warns past ten); a pause is short enough to notice an abort.
      await Promise.race([woken, sleep(pauseMs * (0.5 + Math.random()))]);
    },
  };
}

export async function openPostgresSendGate(options: PostgresSendGateOptions): Promise<SendGate> {
  const { clock, onError } = options;
  const share = options.share === undefined ? undefined : createLocalGate(options.share);
  const unstoredCap = options.share ?? null;
  const view = watchCap(options, await options.readCap());
  let closed = false;
  let places: Promise<TeamPlaces> | undefined;
  const placesOf = (): Promise<TeamPlaces> => {
    places ??= connectPlaces(options.config, unstoredCap).catch((error: unknown) => {
      places = undefined;
      throw error;
    });
    return places;
  };
  const waker = createWaker();

  /** A place among the team's (a no-op release while no cap is stored). */
  async function enterTeam(signal: AbortSignal | undefined): Promise<Leave> {
    let pause = POLL_MIN_MS;
    for (;;) {
      signal?.throwIfAborted();
      if (closed) throw new Error('The send gate is closed.');
      if (view.cap === null) {
        if (clock() - view.readAt < CAP_REREAD_MS) return passThrough;
        view.note(await options.readCap());
        if (view.cap === null) return passThrough;
      }
      let team: TeamPlaces;
      let taken: Taken;
      const isChecked = view.mayBeAbove;
      try {
        team = await placesOf();
        taken = await team.take(isChecked);
      } catch (error) {
        throw onError(error);
      }
      view.note(taken.stored);
      if (taken.cap === null) return passThrough;
      const { place } = taken;
      if (isChecked && !taken.draining) view.mayBeAbove = false;
      else if (!isChecked && view.mayBeAbove && place !== null) {
        // This very query met a lowered cap, and took its place without looking above it: give it back and look.
        await team.give(place).catch((error: unknown) => Promise.reject(onError(error)));
        continue;
      }
      if (place !== null) return leavePlace(team, place);
      if (signal?.aborted) throw signal.reason;
      await waker.wait(pause);
      pause = Math.min(POLL_MAX_MS, pause * 2);
    }
  }

  /** Gives the place back once, and wakes the waiters. */
  function leavePlace(team: TeamPlaces, place: number): Leave {
    let isHeld = true;
    return async () => {
      if (!isHeld) return;
      isHeld = false;
      try {
        if (!closed) await team.give(place);
      } catch (error) {
        throw onError(error);
      } finally {
        waker.wakeAll();
      }
    };
  }

  return {
    async enter(signal?: AbortSignal) {
      const leaveShare = share ? await share.enter(signal) : passThrough;
      let leaveTeam: Leave;
      try {
        leaveTeam = await enterTeam(signal);
      } catch (error) {
        await leaveShare();
        throw error;
      }
      let isHeld = true;
      return async () => {
        if (!isHeld) return;
        isHeld = false;
        try {
          await leaveTeam();
        } finally {
          await leaveShare();
        }
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      waker.wakeAll();
      await share?.close();
      const team = await places?.catch(() => undefined);
      await team?.close();
    },
  };
}
