/**
 * The web app's reads of the ledger (run history, what a sheet already sent) through one
 * connection for the server's life instead of one per page view. Cheaper, and on Node 24 (see
 * src/ledger/sqlite.ts) every connection opened stays in memory until the process ends, which a
 * server left running for weeks must not pay per page. A ledger not yet created reads as
 * undefined and is not created; one deleted or replaced meanwhile is opened afresh.
 */
import { statSync } from 'node:fs';
import { openLedger } from '../ledger/index.js';
import type { SyncLedger as Ledger } from '../ledger/sync-types.js';

export interface LedgerReader {
  /** `read` applied to the ledger, or undefined when there is no ledger file. */
  read<T>(read: (ledger: Ledger) => T): T | undefined;
  close(): void;
}

export function createLedgerReader(path: string): LedgerReader {
  let open: { ledger: Ledger; dev: number; ino: number } | undefined;
  const close = () => {
    open?.ledger.close();
    open = undefined;
  };
  return {
    read(read) {
      let file: { dev: number; ino: number };
      try {
        file = statSync(path);
      } catch {
        close();
        return undefined;
      }
      if (open && (open.dev !== file.dev || open.ino !== file.ino)) close();
      open ??= { ledger: openLedger(path), dev: file.dev, ino: file.ino };
      return read(open.ledger);
    },
    close,
  };
}
