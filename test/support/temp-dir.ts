/** A fresh temporary folder per test file, removed afterwards. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export function useTempDir(prefix: string): (name: string) => string {
  const dir = mkdtempSync(join(tmpdir(), `order-batch-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (name) => join(dir, name);
}
