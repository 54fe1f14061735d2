/**
 * Who counts the ledger's errors (the metrics of serve and --metrics-file): the edge that wants them
 * adds an observer; the ledger tells each one when an outage begins (a lost database, ridden through or
 * not) and when a failure reaches its caller (a refused write, a full disk, an outage that outlasted its
 * bound). A failure is told once however many layers hand it on. The ledger's code stays unaware of
 * what is done with them.
 */
import { LedgerBusyError, LedgerClaimLostError, LedgerError } from './errors.js';

export interface LedgerErrorObservation {
  /** `outage`: the database stopped answering (once per outage); `failure`: an operation failed for good. */
  kind: 'outage' | 'failure';
}

export type LedgerErrorObserver = (observation: LedgerErrorObservation) => void;

const observers = new Set<LedgerErrorObserver>();
/** The root errors already told: a failure wrapped again by an outer layer is the same failure. */
const told = new WeakSet<object>();

export function addLedgerErrorObserver(observer: LedgerErrorObserver): () => void {
  observers.add(observer);
  return () => void observers.delete(observer);
}

export function reportLedgerOutage(): void {
  for (const observer of observers) observer({ kind: 'outage' });
}

/** Tells of `error` when it is the ledger's failure; another run holding an order, or the run lock taken, is no error of the ledger. */
export function reportLedgerFailure(error: unknown): void {
  if (!(error instanceof LedgerError) || error instanceof LedgerBusyError || error instanceof LedgerClaimLostError) return;
  const root = rootOf(error);
  if (told.has(root)) return;
  told.add(root);
  for (const observer of observers) observer({ kind: 'failure' });
}

function rootOf(error: object): object {
  let e = error;
  for (let depth = 0; depth < 8; depth++) {
    const cause = (e as { cause?: unknown }).cause;
    if (typeof cause !== 'object' || cause === null) break;
    e = cause;
  }
  return e;
}
