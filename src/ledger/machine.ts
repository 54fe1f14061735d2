/**
 * Which process namespace this process lives in, so that a run's pid can be checked by another run
 * on the same machine. A run killed with kill -9 and started again at once would otherwise find its
 * own orders held by its dead self until the lease expired. The name joins the host name, the
 * kernel's boot id and the pid namespace: two containers with one host name, or one host rebooted,
 * never share it. Where these cannot be read (not Linux), there is none, and only leases apply.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

let cached: string | null | undefined;

export function machineIdentity(): string | null {
  if (cached !== undefined) return cached;
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNamespace = readlinkSync('/proc/self/ns/pid');
    cached = boot && pidNamespace ? `${hostname()}|${boot}|${pidNamespace}` : null;
  } catch {
    cached = null;
  }
  return cached;
}

/** False only when no process has this pid here (a pid reused by another process reads as alive: the lease then decides). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
