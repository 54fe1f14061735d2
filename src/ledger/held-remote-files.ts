/**
 * The remote file claims made through one ledger object, remembered by holder, so that a stop whose
 * grace is over (Ledger.abandonRuns) lets them go at once with the open runs' orders: another host
 * takes the file at its next look instead of after the lease. A holder let go of holds nothing more
 * through this object: the run still winding down cannot renew, settle or claim a file again, so it
 * never takes a file back from the host that took it over.
 */
import type { RemoteFileClaims } from './remote-file-types.js';

/** The outcome a claim let go of is left with (`ledger copy` and the table show it). */
export const LET_GO_OUTCOME = "let go when a stop's grace ended; the next run takes it again";

export interface HeldRemoteFiles {
  /** The store to hand out as `ledger.remoteFiles`. */
  readonly claims: RemoteFileClaims;
  /** Lets go of every claim still held through this object, at once. */
  letGoAll(): Promise<void>;
}

export function holdRemoteFiles(store: RemoteFileClaims): HeldRemoteFiles {
  const holders = new Set<string>();
  const letGo = new Set<string>();
  const claims: RemoteFileClaims = {
    async claim(claim) {
      if (letGo.has(claim.holder)) return false;
      holders.add(claim.holder);
      return store.claim(claim);
    },
    async renew(holder, leaseMs) {
      if (!letGo.has(holder)) await store.renew(holder, leaseMs);
    },
    async finish(key, holder, end, outcome) {
      if (!letGo.has(holder)) await store.finish(key, holder, end, outcome);
    },
    letGo: (holder, outcome) => store.letGo(holder, outcome),
  };
  return {
    claims,
    async letGoAll() {
      // Every holder is tried, whatever one's failure: what is not let go of waits for its lease.
      const results = await Promise.allSettled(
        [...holders].map((holder) => {
          letGo.add(holder);
          holders.delete(holder);
          return store.letGo(holder, LET_GO_OUTCOME);
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
