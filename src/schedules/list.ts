/** `schedules list`: each schedule, its next occurrences, and its last outcome and where it ran (pure). */
import type { OccurrenceRecord } from '../ledger/index.js';
import { redactUrlsIn } from '../redact.js';
import { nextOccurrences } from './occurrences.js';
import type { Schedule } from './schedule-config.js';

export interface ScheduleListEntry {
  name: string;
  command: string;
  args: string[];
  cron: string;
  timezone: string;
  catchUp: string;
  notify: string[];
  /** The next occurrences (ISO 8601 UTC). */
  next: string[];
  /** The latest occurrence that ran or was missed; null: none yet. */
  last: OccurrenceRecord | null;
  /** An occurrence running now, if any. */
  running: OccurrenceRecord | null;
}

/** `recent`: the schedule's occurrences, newest first. */
export function describeSchedule(schedule: Schedule, recent: readonly OccurrenceRecord[], now: Date, count = 3): ScheduleListEntry {
  return {
    name: schedule.name,
    command: schedule.command,
    args: schedule.args.map(redactUrlsIn),
    cron: schedule.cron,
    timezone: schedule.timezone,
    catchUp: schedule.catchUp,
    notify: schedule.notify.map(describeNotifyTarget),
    next: nextOccurrences(schedule, now, count).map((d) => d.toISOString()),
    last: recent.find((o) => o.state !== 'running') ?? null,
    running: recent.find((o) => o.state === 'running') ?? null,
  };
}

/**
 * A notification target as it may be shown: a webhook's address is often its secret (a chat's
 * incoming-webhook path, a token in the query), so only its origin is; an address to mail is shown.
 */
export function describeNotifyTarget(target: string): string {
  if (!/^https?:\/\//i.test(target)) return target;
  try {
    const url = new URL(target);
    return url.pathname === '/' && url.search === '' ? url.origin : `${url.origin}/…`;
  } catch {
    return 'a webhook';
  }
}

/** The list for a person: one block per schedule. */
export function formatScheduleList(entries: readonly ScheduleListEntry[]): string {
  if (entries.length === 0) return 'No schedules: add them to the config file\'s "schedules" (see docs/schedules.md).\n';
  return entries
    .map((e) => {
      const lines = [`${e.name}: ${[e.command, ...e.args].join(' ')}`, `  cron      ${e.cron} (${e.timezone}), catch-up ${e.catchUp}`, `  next      ${e.next.join(', ') || 'none'}`];
      if (e.running) lines.push(`  running   the occurrence of ${e.running.scheduledAt} on ${e.running.host ?? 'an unknown host'}`);
      lines.push(`  last      ${e.last ? describeOccurrence(e.last) : 'none yet'}`);
      return lines.join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

/** "2026-11-29T02:00:00.000Z ok (exit 0: 40 accepted) on batch-1 4711, run 3f2a…". */
export function describeOccurrence(o: OccurrenceRecord): string {
  const summary = o.summary ? Object.entries(o.summary).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`).join(', ') : '';
  const exit = o.exitCode === null ? '' : ` (exit ${o.exitCode}${summary ? `: ${summary}` : ''})`;
  const where = o.host ? ` on ${o.host}` : '';
  const run = o.runId ? `, run ${o.runId}` : '';
  const why = o.message && o.outcome !== 'ok' ? `: ${o.message}` : '';
  const kind = o.kind === 'scheduled' ? '' : ` [${o.kind.replace('_', '-')}]`;
  return `${o.scheduledAt} ${o.outcome ?? o.state}${kind}${exit}${where}${run}${why}`;
}
