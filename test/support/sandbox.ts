/** The in-process sandbox API a test file sends to: on a free port of 127.0.0.1, closed after the file. */
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/options.js';

/** Starts the sandbox before the file's tests and closes it after them; the function gives the running one. */
export function useSandbox(options: SandboxOptions): () => SandboxHandle {
  let sandbox: SandboxHandle | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, ...options });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  return () => {
    if (!sandbox) throw new Error('the sandbox is started before the tests: ask for it inside a test or a hook');
    return sandbox;
  };
}
