/** Spawns fixtures/ledger-child.mjs (or another child script) and reads its report lines as they arrive. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./fixtures/ledger-child.mjs', import.meta.url));

export interface LedgerChild {
  process: ChildProcess;
  /** Every complete line received so far. */
  lines: string[];
  /** Resolves with the first line (already received or to come) that matches. */
  waitForLine(match: (line: string) => boolean): Promise<string>;
  /** SIGKILL, then wait until the process is gone and every line it wrote has been read. */
  kill(): Promise<void>;
}

export function spawnLedgerChild(args: string[], script: string | URL = CHILD): LedgerChild {
  const child = spawn(process.execPath, [script instanceof URL ? fileURLToPath(script) : script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  const exited = once(child, 'exit');
  const reader = createInterface({ input: child.stdout! });
  // 'exit' can come before the last lines are read from the pipe; 'close' comes after them.
  const drained = once(reader, 'close');
  reader.on('line', (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  return {
    process: child,
    lines,
    waitForLine(match) {
      const seen = lines.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then(([code, signal]) => reject(new Error(`child exited (${String(code ?? signal)}) before the expected line`)));
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.all([exited, drained]);
    },
  };
}
