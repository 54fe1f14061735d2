/**
 * The session plugin's store, kept in the ledger (ledger/team-types.ts SessionStore): every instance
 * of the web app that shares the ledger knows every session, a disabled account's sessions end at
 * its next request wherever it arrives, and a new role applies at once. Idle time is measured on the
 * ledger's clock.
 */
import type { SessionStore as PluginStore } from '@fastify/session';
import type { Session } from 'fastify';
import type { Role, SessionStore as LedgerSessions } from '../../ledger/index.js';

/** What a browser's session holds. `role` is read afresh from the account with each request, never kept. */
export interface WebSessionData {
  /** The account logged in; absent: nobody (or the one-person mode without accounts). */
  user?: string | null;
  role?: Role | null;
  /** The session's CSRF token: forms and the page's script send it back. */
  csrf?: string;
  /** Where the session was opened from. */
  address?: string | null;
}

type Callback = (error?: unknown) => void;

/**
 * @fastify/session's store interface (callbacks), over the ledger's promises. A session ends after
 * `idleMs` without a request, and `maxMs` after its login however busy (a stolen cookie does not
 * last forever).
 */
export function createLedgerSessionStore(sessions: LedgerSessions, limits: { idleMs: number; maxMs: number; clock: () => Date }): PluginStore {
  const { idleMs, maxMs, clock } = limits;
  return {
    set(id: string, session: Session, done: Callback) {
      sessions.save(id, { userName: session.user ?? null, data: session.csrf ? { csrf: session.csrf } : {}, address: session.address ?? null }).then(() => done(), done);
    },
    get(id: string, done: (error: unknown, session?: Session | null) => void) {
      const alive = async () => {
        const record = await sessions.load(id, idleMs);
        if (!record || clock().getTime() - Date.parse(record.createdAt) <= maxMs) return record;
        await sessions.remove(id);
        return null;
      };
      alive().then(
        (record) =>
          done(
            null,
            record
              ? ({ user: record.userName, role: record.role, address: record.address, ...(typeof record.data.csrf === 'string' ? { csrf: record.data.csrf } : {}) } as Session)
              : null,
          ),
        done,
      );
    },
    destroy(id: string, done: Callback) {
      sessions.remove(id).then(() => done(), done);
    },
  };
}
