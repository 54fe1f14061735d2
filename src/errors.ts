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

/**
 * Why the API cannot be used: refused credentials or token (auth), 403 (forbidden), no API at the
 * address (no_endpoint: 404/405, or a page that is not the API's answer), unreachable or failing
 * wholesale (unavailable), or any other refusal of a request the tool needs (refused).
 */
export type ApiUnusableKind = 'auth' | 'forbidden' | 'no_endpoint' | 'unavailable' | 'refused';

/** The API cannot be used at all (auth refused, unreachable, 403): exit 3. */
export class ApiUnusableError extends Error {
  override readonly name = 'ApiUnusableError';
  readonly kind: ApiUnusableKind;

  constructor(message: string, options: { cause?: unknown; kind?: ApiUnusableKind } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind ?? 'no_endpoint';
  }
}

/**
 * A file the tool must write (a result file, a moved sheet) cannot be written: exit 2, like any
 * setting the user can fix. `path` is the file meant, never the temporary file beside it.
 */
export class OutputError extends UsageError {
  constructor(
    readonly path: string,
    /** The system error code (EACCES, ENOSPC...), or null when the cause was not the file system. */
    readonly code: string | null,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    // UsageError types its name as the literal 'UsageError'; set the subclass's own name at runtime.
    Object.defineProperty(this, 'name', { value: 'OutputError', enumerable: false, configurable: true, writable: true });
  }
}

/** Why a file-system call failed, in words, for the codes a full disk, a read-only folder or a typo give. */
const FILE_SYSTEM_REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'there is a folder of that name',
  ENAMETOOLONG: 'the name is too long',
  EEXIST: 'a file of that name is in the way',
  EBUSY: 'the file is in use',
  ETXTBSY: 'the file is in use',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  EIO: 'the disk reported an input/output error',
  EXDEV: 'it is on another disk',
};

/** The system error code of a failed file-system call (EACCES...), or null for any other error. */
export function fileSystemErrorCode(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const { code, syscall } = error as NodeJS.ErrnoException;
  return typeof code === 'string' && typeof syscall === 'string' && /^E[A-Z]+$/.test(code) ? code : null;
}

/** "permission denied (EACCES)": the reason a file-system call failed, in words, with its code. */
export function describeFileSystemError(error: unknown): string {
  const code = fileSystemErrorCode(error);
  if (code === null) return error instanceof Error ? error.message : String(error);
  const reason = FILE_SYSTEM_REASONS[code];
  return reason ? `${reason} (${code})` : `${(error as Error).message.replace(/,.*$/, '')}`;
}

/**
 * The OutputError for a failed write of `path`, or null when `error` is not a file-system failure
 * (a bug, which must not be dressed up as the user's problem). `what` names the file ("the result
 * file"), `remedy` says what to do ("write it elsewhere with --out <file or folder>").
 */
export function toOutputError(error: unknown, path: string, what: string, remedy: string): OutputError | null {
  if (error instanceof OutputError) return error;
  const code = fileSystemErrorCode(error);
  if (code === null) return null;
  return new OutputError(path, code, `Could not write ${what} ${path}: ${describeFileSystemError(error)}. ${remedy}`, { cause: error });
}

/**
 * The one line for a file-system failure no command turned into an OutputError, or null when `error`
 * is something else (a bug). It names the file meant, not the temporary one written beside it.
 */
export function describeFileFailure(error: unknown): string | null {
  const path = (error as NodeJS.ErrnoException | null)?.path;
  if (fileSystemErrorCode(error) === null || typeof path !== 'string') return null;
  const meant = path.replace(/\.\d+\.partial$/, '');
  const verb = meant === path ? 'use' : 'write';
  return `Could not ${verb} ${meant}: ${describeFileSystemError(error)}. Check the path (its folder, permissions and free space), or choose another one.`;
}
