/**
 * The exit code a finished run stands for (PRODUCT.md section 1), the same for the CLI and the web app's
 * notifications: 0 everything valid or accepted; 1 some orders invalid, rejected or failed (or a
 * reconciliation with exceptions); 2 unreadable input or a file that cannot be written; 3 the API could
 * not be used at all, or the ledger stopped working in the middle of the run.
 */
import { EXIT } from '../errors.js';
import type { JsonReport } from './json.js';

export function validateExitCode(result: { hasUnusableInput: boolean; hasInvalidOrders: boolean; report: JsonReport }): number {
  if (result.hasUnusableInput || hasOutputErrors(result.report)) return EXIT.usage;
  return result.hasInvalidOrders ? EXIT.someFailed : EXIT.ok;
}

export function importExitCode(result: { apiUnusable?: unknown; ledgerFailure?: unknown; hasUnusableInput: boolean; hasProblems: boolean; report: JsonReport }): number {
  // A ledger that failed mid-run (a full disk, a damaged file), whatever the API did: like an API that stopped answering, the run could not go on.
  if (result.ledgerFailure) return EXIT.apiUnusable;
  if (result.apiUnusable) return EXIT.apiUnusable;
  if (result.hasUnusableInput || hasOutputErrors(result.report)) return EXIT.usage;
  return result.hasProblems ? EXIT.someFailed : EXIT.ok;
}

/** A workbook that could not be written is the user's to fix (2); an order in exception or not found is 1. */
export function reconcileExitCode(result: { hasExceptions: boolean; report: JsonReport }): number {
  if (hasOutputErrors(result.report)) return EXIT.usage;
  return result.hasExceptions ? EXIT.someFailed : EXIT.ok;
}

function hasOutputErrors(report: JsonReport): boolean {
  return (report.outputErrors?.length ?? 0) > 0;
}
