/**
 * The ledger backends the contract suite (contract.test.ts) runs against. Adding a backend is adding
 * one entry to BACKENDS.
 */
import { join } from 'node:path';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger, LedgerOptions } from '../../src/ledger/types.js';
import { makeTempDir } from './builders.js';

/** One empty ledger for one test: every open() is another connection to it, as another process would make. */
export interface LedgerUnderTest {
  open(options?: LedgerOptions): Promise<Ledger>;
  /**
   * Makes the lease of a run that is still open expire now, as if its process had stalled past it
   * (backends with concurrent runs only).
   */
  expireLease?(runId: string): Promise<void>;
  /** Removes the ledger (the test has closed what it opened). */
  drop(): Promise<void>;
}

export interface BackendUnderTest {
  name: string;
  /** Several runs at once, each order claimed with a lease; false: one run at a time (the run lock). */
  hasConcurrentRuns: boolean;
  create(): Promise<LedgerUnderTest>;
}

const sqlite: BackendUnderTest = {
  name: 'sqlite',
  hasConcurrentRuns: false,
  async create() {
    const temp = makeTempDir();
    const path = join(temp.dir, 'ledger.db');
    return {
      open: (options) => openLedger(path, options),
      drop: async () => temp.cleanup(),
    };
  },
};

export const BACKENDS: readonly BackendUnderTest[] = [sqlite];
