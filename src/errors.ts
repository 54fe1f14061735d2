/**
 * What stops a run. Everything else (a bad cell, a rejected order) is an outcome, not an exception.
 * The CLI turns these into one-line messages and exit codes (PRODUCT.md section 1); an error of
 * any other class is a bug and is reported as one.
 */

export const EXIT = { ok: 0, someFailed: 1, usage: 2, apiUnusable: 3 } as const;

/** Bad flags, bad configuration, missing connection settings: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A file that cannot be read as an order sheet: exit 2. `code` is the file-level issue code. */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly file: string,
    readonly code: 'unreadable_file' | 'unsupported_format' | 'empty_file' | 'missing_column',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The API cannot be used at all (auth refused, unreachable, 403): exit 3. */
export class ApiUnusableError extends Error {
  override readonly name = 'ApiUnusableError';
}
