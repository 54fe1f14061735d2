/**
 * A process's own peak resident memory. `ru_maxrss` (process.resourceUsage().maxRSS) survives exec on Linux, so a
 * child started right after its parent grew (the bench, having just generated a data set) reports the parent's peak;
 * the memory map's high-water mark, `VmHWM` in /proc/self/status, starts afresh with the new program.
 */
import { readFileSync } from 'node:fs';

/** Peak RSS of this process in MB (MiB): VmHWM where /proc has it, ru_maxrss elsewhere. */
export function peakRssMb(): number {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // No /proc (macOS): fall through to the rusage figure.
  }
  return process.resourceUsage().maxRSS / 1024;
}
