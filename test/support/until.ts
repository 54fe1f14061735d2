/**
 * Waits for a condition by looking again and again, a bounded number of times: the wait of a test that
 * drives real processes, never a timing assertion. Past the bound, it fails naming what it waited for.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Defaults: 2,400 looks 50 ms apart, about two minutes however loaded the machine. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, { looks = 2_400, everyMs = 50 } = {}): Promise<void> {
  for (let look = 0; look < looks; look++) {
    if (await condition()) return;
    await sleep(everyMs);
  }
  throw new Error(`gave up waiting: ${what}`);
}
