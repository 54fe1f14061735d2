/**
 * Where `reconcile --confirmations <path>` goes: a path ending in `.csv` is today's generic file alone;
 * anything else is a folder that gets confirmations.csv and one file per marketplace (write-files.ts).
 */
import { toOutputError } from '../../errors.js';
import type { MarketplaceStore } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import { isConfirmationsFolder } from '../../output-files/output-path.js';
import { RECONCILE_OUTPUT_REMEDY, writeConfirmationsCsv } from '../confirmations.js';
import type { ReconciledOrder } from '../types.js';
import { writeConfirmationFiles, type ConfirmationFile } from './write-files.js';

export interface WrittenConfirmations {
  /** The generic file's path (the report's `confirmations`). */
  path: string;
  /** Every file written, folder mode only. */
  files?: ConfirmationFile[];
  notes?: string[];
}

export async function writeConfirmations(
  path: string,
  orders: Iterable<ReconciledOrder>,
  options: { store?: MarketplaceStore; isAll?: boolean; place?: () => Promise<void>; logger: Logger },
): Promise<WrittenConfirmations> {
  if (!isConfirmationsFolder(path)) return { path: await writeConfirmationsCsv(path, orders) };
  try {
    const written = await writeConfirmationFiles({ folder: path, orders, ...options });
    return { path: written.files[0]!.path, files: written.files, notes: written.notes };
  } catch (error) {
    throw toOutputError(error, path, 'the confirmations folder', RECONCILE_OUTPUT_REMEDY) ?? error;
  }
}
