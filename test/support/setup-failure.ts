/**
 * A globalSetup that fails stops the run before any test file: vitest then reports no module and no
 * error to the reporters (the error is printed after them). The setup records its failure here, on the
 * process both share, so the closing summary can say what failed instead of "0 failed".
 */
const KEY = Symbol.for('order-batch.test-setup-failures');

type Holder = { [KEY]?: string[] };

export function recordSetupFailure(what: string, error: unknown): void {
  const holder = globalThis as Holder;
  (holder[KEY] ??= []).push(`${what} failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** The failures recorded in this process, oldest first. */
export function readSetupFailures(): readonly string[] {
  return (globalThis as Holder)[KEY] ?? [];
}
