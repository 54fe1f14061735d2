/**
 * The config file's `schedules` (PRODUCT.md section 9): what each schedule runs, when, and in which
 * zone. Checked when the config file is read, so a schedule that could never run (a bad cron, an
 * unknown zone, two of one name) stops `scheduler` and `serve` at start, not at 2 a.m.
 */
import { Cron } from 'croner';
import { IANAZone } from 'luxon';
import { z } from 'zod';

export const SCHEDULE_COMMANDS = ['import', 'reconcile'] as const;
export type ScheduleCommand = (typeof SCHEDULE_COMMANDS)[number];

/** A missed occurrence still runs this long after its time (the config's `catchUp`, default 6 h). */
export const DEFAULT_CATCH_UP = '6h';
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "6h", "30m", "1d", "90s" in ms; null when it is not such a duration. */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,6})\s*([smhd])$/i.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!.toLowerCase() as keyof typeof UNIT_MS] : null;
}

/** Whether croner reads the pattern; its own words when it does not ("Invalid value for minute: 61"). */
function cronProblem(pattern: string): string | null {
  try {
    new Cron(pattern, { paused: true });
    return null;
  } catch (error) {
    return (error as Error).message.replace(/^CronPattern:\s*/, '');
  }
}

const NOTIFY_TARGET = /^(mailto:[^\s@,]+@[^\s@,]+(,[^\s@,]+@[^\s@,]+)*|https?:\/\/[^\s]+)$/i;

const scheduleSchema = z
  .strictObject({
    /** Names the schedule in `schedules run`, the ledger and the audit trail. */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a name of letters, digits, ".", "_" or "-" (at most 64), such as nightly-import'),
    /** Five fields (minute hour day month weekday) or six with seconds first, read by croner. */
    cron: z.string().min(1).superRefine((pattern, ctx) => {
      const problem = cronProblem(pattern);
      if (problem) ctx.addIssue({ code: 'custom', message: `not a cron expression croner reads (${problem})` });
    }),
    timezone: z.string().default('UTC').refine((zone) => IANAZone.isValidZone(zone), { message: 'an IANA zone such as Europe/Berlin or UTC' }),
    command: z.enum(SCHEDULE_COMMANDS),
    /** The command's arguments as on the command line, without the command's name. */
    args: z.array(z.string()).default([]),
    /** Where the run's result is sent: mailto:addr[,addr] or an http(s):// webhook. */
    notify: z.array(z.string().regex(NOTIFY_TARGET, 'mailto:addr[,addr] or an http(s):// address')).default([]),
    catchUp: z.string().default(DEFAULT_CATCH_UP).refine((text) => parseDuration(text) !== null, { message: 'a duration such as 6h, 30m or 1d' }),
  });

export const schedulesSchema = z.array(scheduleSchema).superRefine((schedules, ctx) => {
  const seen = new Set<string>();
  for (const [i, s] of schedules.entries()) {
    if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `a second schedule named "${s.name}" (names are unique)` });
    seen.add(s.name);
  }
});

export type ScheduleEntry = z.infer<typeof scheduleSchema>;

/** A schedule as the scheduler uses it: its catch-up window in ms. */
export interface Schedule extends ScheduleEntry {
  catchUpMs: number;
}

export function toSchedules(entries: readonly ScheduleEntry[]): Schedule[] {
  return entries.map((entry) => ({ ...entry, catchUpMs: parseDuration(entry.catchUp)! }));
}
