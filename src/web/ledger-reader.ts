/**
 * The web app's reads of the ledger (run history, what a sheet already sent) through one
 * connection for the server's life instead of one per page view. Cheaper, and on Node 24 (see
 * src/sqlite/open-database.ts) every connection opened stays in memory until the process ends, which a
 * server left running for weeks must not pay per page. A ledger file not yet created reads as
 * undefined and is not created; one deleted or replaced meanwhile is opened afresh. A ledger on a
 * server (PostgreSQL) is opened once.
 */
import { statSync } from 'node:fs';
import { type Ledger, openLedger, parseLedgerLocation } from '../ledger/index.js';

export interface LedgerReader {
  /** `read` applied to the ledger, or undefined when there is no ledger file. */
  read<T>(read: (ledger: Ledger) => Promise<T>): Promise<T | undefined>;
  close(): Promise<void>;
}

export function createLedgerReader(location: string): LedgerReader {
  const where = parseLedgerLocation(location);
  /** The open ledger, and the file it is (none for a server); opening once even when pages ask at once. */
  let open: { ledger: Promise<Ledger>; dev?: number; ino?: number } | undefined;
  const close = async (): Promise<void> => {
    const closing = open?.ledger;
    open = undefined;
    await closing?.then((ledger) => ledger.close(), () => undefined);
  };
  return {
    async read(read) {
      let file: { dev?: number; ino?: number } = {};
      if (where.backend === 'sqlite') {
        try {
          file = statSync(where.path);
        } catch {
          await close();
          return undefined;
        }
        if (open && (open.dev !== file.dev || open.ino !== file.ino)) await close();
      }
      if (!open) {
        const opening = openLedger(location);
        open = { ledger: opening, ...file };
        // A failed open is tried again by the next read.
        opening.catch(() => {
          if (open?.ledger === opening) open = undefined;
        });
      }
      return read(await open.ledger);
    },
    close,
  };
}
