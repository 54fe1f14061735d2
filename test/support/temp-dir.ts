/** Temporary folders of a test file, removed after its tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** One folder for the file: `at(name)` is a path in it. */
export function useTempDir(prefix: string): (name: string) => string {
  const dir = useTempFolder(prefix);
  return (name) => join(dir, name);
}

/** One folder for the file, its path. */
export function useTempFolder(prefix: string): string {
  return useTempFolders(prefix)();
}

/**
 * A new folder at each call, for a test or a world that wants one of its own; a call may name it by
 * another prefix. Called where a module is loaded, the folders go after the test file that loaded it.
 */
export function useTempFolders(prefix: string): (prefixOfCall?: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefixOfCall = prefix) => {
    const dir = makeTempFolder(prefixOfCall);
    made.push(dir);
    return dir;
  };
}

/** A new folder whose removal is the caller's (a server or a process that outlives one test's hooks). */
export function makeTempFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `order-batch-${prefix}-`));
}
