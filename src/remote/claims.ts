/**
 * One run's claims of remote file versions, held in the run's own ledger (its `remoteFiles` store) so
 * that, across every host of the ledger, one run processes each version once. The holder names this
 * run; the lease is the ledger's to time.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Ledger, RemoteFileEnd } from '../ledger/index.js';

export type ClaimEnd = RemoteFileEnd;

export interface ClaimStore {
  /** True when this run now holds the version: new, released for retry, or its holder's lease has lapsed. */
  claim(location: string, version: string): Promise<boolean>;
  /** Keeps this run's claims alive. */
  renew(): Promise<void>;
  /** Settles a claim: done (a new version is needed to process it again) or retry (the next run takes it). */
  finish(location: string, version: string, end: ClaimEnd, outcome: string): Promise<void>;
}

/** This run's claims in `ledger`, each held for `leaseMs` past its last renewal. */
export function claimsIn(ledger: Pick<Ledger, 'remoteFiles'>, leaseMs: number): ClaimStore {
  const store = ledger.remoteFiles;
  const host = hostname();
  const holder = `${host}:${process.pid}:${randomBytes(6).toString('hex')}`;
  return {
    claim: (location, version) => store.claim({ location, version, holder, host, leaseMs }),
    renew: () => store.renew(holder, leaseMs),
    finish: (location, version, end, outcome) => store.finish({ location, version }, holder, end, outcome),
  };
}
