/** Which runs of the ledger a schedule ran, for the web app's History: the schedule's name, and which of its results the ledger keeps. */
import type { FileStore, ScheduleOccurrences } from '../ledger/index.js';
import { SCHEDULE_FILES_AREA } from './keep-results.js';

/** How many recent occurrences are looked at: more than History shows runs. */
const RECENT_OCCURRENCES = 500;

/** For each of `runIds` a schedule ran: its name, and the indexes of its result files kept in the ledger. */
export async function schedulesOfRuns(store: ScheduleOccurrences, files: FileStore, runIds: readonly string[]): Promise<Map<string, { name: string; kept: Set<number> }>> {
  const wanted = new Set(runIds);
  const byRun = new Map<string, { name: string; kept: Set<number> }>();
  for (const occurrence of await store.list({ limit: RECENT_OCCURRENCES })) {
    if (!occurrence.runId || !wanted.has(occurrence.runId) || byRun.has(occurrence.runId)) continue;
    // The stored name starts with the result's index among the run's result files (keep-results.ts).
    const kept = new Set((await files.list(SCHEDULE_FILES_AREA, occurrence.runId)).map((f) => Number.parseInt(f.name, 10)).filter(Number.isInteger));
    byRun.set(occurrence.runId, { name: occurrence.schedule, kept });
  }
  return byRun;
}
