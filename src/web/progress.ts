/** Live progress arithmetic for a submission: pure, so the page's numbers are tested without a clock. */

export interface ProgressCounts {
  done: number;
  total: number;
  /** Orders per outcome so far (accepted, rejected, failed, already_submitted). */
  byStatus: Record<string, number>;
}

/**
 * Seconds left at the pace so far, or null while there is no pace yet. Rounded up: "0 s left"
 * while orders are still outstanding would be a lie.
 */
export function estimateSecondsLeft(done: number, total: number, elapsedMs: number): number | null {
  if (done <= 0 || elapsedMs <= 0 || total <= done) return done >= total && total > 0 ? 0 : null;
  return Math.ceil(((total - done) * elapsedMs) / done / 1000);
}

/** "about 12 s", "about 3 min", "about 1 h 5 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  return `about ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function percentDone(done: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((done / total) * 100));
}

export function countOutcome(progress: ProgressCounts, done: number, total: number, status: string): ProgressCounts {
  return { done, total, byStatus: { ...progress.byStatus, [status]: (progress.byStatus[status] ?? 0) + 1 } };
}
