/** Exit codes and messages for files a run could not write: clear words, the file meant, exit 2, never "internal error". */
import { describe, expect, it } from 'vitest';
import { importExitCode, validateExitCode } from '../../src/run-report/exit-code.js';
import { formatOutputErrors, outputErrorOf } from '../../src/run-report/output-errors.js';
import type { JsonReport } from '../../src/run-report/json.js';
import { describeFileFailure, OutputError, toOutputError, UsageError } from '../../src/errors.js';

/** A Node file-system error as fs throws it. */
function fsError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something, ${syscall} '${path}'`), { code, syscall, path, errno: -1 });
}

const report = (overrides: Partial<JsonReport>): JsonReport => ({ command: 'import', input: [], summary: {}, orders: [], output: null, ...overrides });

describe('a file that cannot be written', () => {
  it.each([
    ['ENOSPC', 'the disk is full (ENOSPC)'],
    ['EROFS', 'the file system is read-only (EROFS)'],
    ['EISDIR', 'there is a folder of that name (EISDIR)'],
    ['ENOENT', 'no such file or folder (ENOENT)'],
    ['EPERM', 'the operation is not permitted (EPERM)'],
  ])('%s: names the file meant (not its temporary twin), the reason and the fix', (code, reason) => {
    const error = toOutputError(fsError(code, 'open', 'out/r.xlsx.123.partial'), 'out/r.xlsx', 'the result file', 'Use --out.');
    expect(error).toBeInstanceOf(OutputError);
    expect(error).toBeInstanceOf(UsageError); // exit 2 wherever it is caught
    expect(error!.message).toBe(`Could not write the result file out/r.xlsx: ${reason}. Use --out.`);
    expect(error!.code).toBe(code);
  });

  it('does not dress a bug up as the user\'s problem', () => {
    expect(toOutputError(new TypeError('x is undefined'), 'r.xlsx', 'the result file', '')).toBeNull();
    expect(outputErrorOf(new TypeError('x is undefined'), 'in.csv', 'r.xlsx')).toBeNull();
    expect(describeFileFailure(new TypeError('x is undefined'))).toBeNull();
  });

  it('a file-system failure no command caught reads as one, with the real file name', () => {
    expect(describeFileFailure(fsError('EACCES', 'open', 'ro/rec.xlsx.4242.partial'))).toBe(
      'Could not write ro/rec.xlsx: permission denied (EACCES). Check the path (its folder, permissions and free space), or choose another one.',
    );
  });

  it('exits 2, after the API being unusable (3) and before invalid orders (1)', () => {
    const failed = report({ outputErrors: [{ file: 'a.csv', path: 'r.xlsx', code: 'EACCES', message: 'm' }] });
    expect(importExitCode({ hasUnusableInput: false, hasProblems: true, report: failed })).toBe(2);
    expect(importExitCode({ apiUnusable: { kind: 'auth' }, hasUnusableInput: false, hasProblems: false, report: failed })).toBe(3);
    expect(importExitCode({ hasUnusableInput: false, hasProblems: true, report: report({}) })).toBe(1);
    expect(validateExitCode({ hasUnusableInput: false, hasInvalidOrders: false, report: { ...failed, command: 'validate' } })).toBe(2);
    expect(validateExitCode({ hasUnusableInput: false, hasInvalidOrders: false, report: report({ command: 'validate' }) })).toBe(0);
  });

  it('says nothing more when no order was accepted (a dry run, a validate)', () => {
    const failed = report({ summary: { valid: 3 }, outputErrors: [{ file: 'a.csv', path: 'r.xlsx', code: 'ENOSPC', message: 'Could not write r.xlsx.' }] });
    expect(formatOutputErrors(failed)).toBe('order-batch: Could not write r.xlsx.\n');
    expect(formatOutputErrors(report({ summary: { accepted: 3 } }))).toBe('');
  });
});
