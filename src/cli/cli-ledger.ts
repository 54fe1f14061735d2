/**
 * The ledger as a CLI command holds it: opened once per command run, here, and handed to everything
 * the run does with it (saved mappings, the run, remote claims, the audit entry, a notification's
 * failure record). Looking never creates a ledger file: a command that only reads opens one that exists.
 */
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { ResolvedOptions } from '../options.js';
import { sayMappingsUnread } from './command-options.js';

/** The ledger of a command that needs one (created when it is not there yet). A LedgerError stops the command (exit 2). */
export async function openCommandLedger(options: ResolvedOptions, logger: Logger): Promise<Ledger> {
  const { openLedger } = await import('../ledger/index.js');
  return openLedger(options.ledgerPath, { logger, claimLeaseMs: options.claimLeaseMs, outageMs: options.ledgerOutageMs });
}

/** The ledger when one exists, undefined when there is none yet (nothing is created by looking). */
export async function openExistingLedger(options: ResolvedOptions, logger: Logger): Promise<Ledger | undefined> {
  const { ledgerExists } = await import('../ledger/index.js');
  return ledgerExists(options.ledgerPath) ? openCommandLedger(options, logger) : undefined;
}

/**
 * For a command the ledger only adds to (an offline validate, mapping suggest): an existing ledger that
 * cannot be opened is said once and the command goes on without it, with the built-in profiles.
 */
export async function openLedgerIfReadable(options: ResolvedOptions, logger: Logger): Promise<Ledger | undefined> {
  try {
    return await openExistingLedger(options, logger);
  } catch (error) {
    sayMappingsUnread(options.ledgerPath, error);
    return undefined;
  }
}

/** `work` on the command's ledger, closed after it whatever happens. */
export async function withCommandLedger<T>(ledger: Ledger | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await ledger?.close();
  }
}
