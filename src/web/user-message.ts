/** What a person reads when a submission or a reconciliation cannot run: their own words for what they can fix. */
import { apiUnusableOf } from '../api/unusable.js';
import { ApiUnusableError, InputError, UsageError } from '../errors.js';

export function isUserError(error: unknown): boolean {
  return error instanceof UsageError || error instanceof InputError || apiUnusableOf(error) !== null;
}

/** A sentence for the page: the error's own for what the user can fix, a pointer to the log for a bug. */
export function userMessage(error: unknown): string {
  const unusable = apiUnusableOf(error);
  if (unusable) return error instanceof ApiUnusableError ? error.message : `The fulfillment API could not be used: ${unusable.message}.`;
  if (isUserError(error)) return (error as Error).message;
  return 'Something went wrong inside order-batch (this is a bug; the server log has the details).';
}
