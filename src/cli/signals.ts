/** How a command answers Ctrl-C and SIGTERM. */

/**
 * The first Ctrl-C or SIGTERM (a cron job's timeout) asks the command to wind down and say so; a
 * second one quits at once, which the ledger makes safe (the next run looks up what was in flight).
 */
export function onInterrupt(message: string): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(128 + (name === 'SIGINT' ? 2 : 15));
    // A person at a terminal presses Ctrl-C; a service manager sends SIGTERM and, if need be, SIGKILL.
    const again = name === 'SIGINT' ? 'press Ctrl-C again to quit at once' : 'a second SIGTERM quits at once';
    process.stderr.write(`\n${message} (${again}).\n`);
    controller.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/**
 * For a command that writes files but has nothing to wind down: Ctrl-C or SIGTERM quits at once,
 * through process.exit, so the exit hook of output-files/atomic-file.ts removes any half-written
 * `.partial` file (a signal's default action would skip it).
 */
export function exitOnSignal(): void {
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
}

/** Resolves at the first Ctrl-C or SIGTERM: a server runs until then. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolveStop) => {
    process.once('SIGINT', () => resolveStop());
    process.once('SIGTERM', () => resolveStop());
  });
}
