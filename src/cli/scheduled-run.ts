/**
 * A schedule's occurrence run as its command would be on the command line: its args parsed by that
 * command's own commander definition (import.ts, reconcile.ts; its action set aside), merged with the
 * environment and the scheduler's config file by resolveOptions, and handed to the same run function.
 * What it prints on the command line is its result here: the exit code, the summary and the run id.
 */
import { watchRun } from './run-watch.js';
import { Command, CommanderError } from 'commander';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import { resolveOptions, type RawFlags, type ResolvedOptions } from '../options.js';
import type { Schedule } from '../schedules/schedule-config.js';
import type { RunOccurrence, RunRequest, RunResult } from '../schedules/scheduler.js';
import { keepRunResults } from '../schedules/keep-results.js';
import { recordScheduledRun } from '../schedules/record-audit.js';
import { CliRun } from './cli-run.js';
import { apiSettingsOf, checkContextOf, readSettingsOf } from './command-options.js';
import { failureOf, importExitCode, reconcileExitCode } from './exit-codes.js';
import { addImportCommand } from './import.js';
import { addReconcileCommand } from './reconcile.js';
import { remoteContextOf } from './remote-options.js';

/** Flags a schedule cannot set: it runs on the scheduler's ledger and config, and prints nothing. */
const REFUSED_FLAGS = ['--ledger', '--config', '--help', '-h'];

interface ParsedArgs {
  positional: string[];
  flags: RawFlags & Record<string, unknown>;
}

/** Parses a schedule's args with its command's definition; a UsageError names the schedule. */
export async function parseScheduleArgs(schedule: Pick<Schedule, 'name' | 'command' | 'args' | 'notify'>): Promise<ParsedArgs> {
  const refused = schedule.args.find((arg) => REFUSED_FLAGS.includes(arg.split('=')[0]!));
  if (refused) throw new UsageError(`schedule "${schedule.name}": ${refused} cannot be among its args (a schedule runs on the scheduler's ledger and config file).`);
  const program = new Command().exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  (schedule.command === 'import' ? addImportCommand : addReconcileCommand)(program, new CliRun());
  const command = program.commands.find((c) => c.name() === schedule.command)!;
  let parsed: ParsedArgs | null = null;
  command.action((...values: unknown[]) => {
    const flags = values.at(-2) as ParsedArgs['flags'];
    parsed = { positional: schedule.command === 'import' ? (values[0] as string[]) : [], flags };
  });
  // Notifications go through the command's own --notify where it has one.
  const notify = command.options.some((o) => o.long === '--notify') ? schedule.notify.flatMap((target) => ['--notify', target]) : [];
  try {
    await program.parseAsync([schedule.command, ...schedule.args, ...notify], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new UsageError(`schedule "${schedule.name}": its args: ${error.message.replace(/^error: /, '')}`, { cause: error });
    throw error;
  }
  return parsed!;
}

export interface ScheduledRunnerOptions {
  /** The scheduler's own flags: its config file and ledger are the run's. */
  base: RawFlags;
  env: Record<string, string | undefined>;
  clock: () => Date;
  logger: Logger;
}

/** The function the scheduler calls for each occurrence. */
export function createScheduledRunner(options: ScheduledRunnerOptions): RunOccurrence {
  return async (request) => {
    const logger = options.logger.child({ schedule: request.schedule.name });
    try {
      const { positional, flags } = await parseScheduleArgs(request.schedule);
      const resolved = resolveOptions({ ...flags, ...(request.schedule.notify.length > 0 ? { notify: request.schedule.notify } : {}), config: options.base.config, ledger: options.base.ledger, claimLease: flags.claimLease ?? options.base.claimLease, logLevel: options.base.logLevel }, options.env, options.clock());
      return request.schedule.command === 'import' ? await importOccurrence(positional, resolved, request, logger) : await reconcileOccurrence(flags, resolved, logger, request);
    } catch (error) {
      const failure = failureOf(error);
      return { exitCode: failure.exitCode, summary: null, runId: null, message: failure.message };
    }
  };
}

async function importOccurrence(files: string[], options: ResolvedOptions, request: RunRequest, logger: Logger): Promise<RunResult> {
  const { runImport } = await import('../import/run-import.js');
  const { prepareRemoteRun } = await import('../remote/remote-run.js');
  const remote = await prepareRemoteRun({ command: 'import', files, out: options.out, archive: options.archiveDir }, remoteContextOf(options));
  for (const line of remote.warnings) logger.warn(line);
  const result = await runImport({
    ...apiSettingsOf(options),
    files: remote.files,
    out: remote.out,
    sheet: options.sheet,
    context: checkContextOf(options),
    readSettings: await readSettingsOf(options, { needsLedger: true }),
    dryRun: options.dryRun,
    ...(options.teamConcurrency ? { teamConcurrency: options.teamConcurrency } : {}),
    archiveDir: remote.archive,
    logger,
    signal: request.signal,
    onRunStarted: request.onRunStarted,
  }).catch(remote.abandon);
  await remote.finish(result.report).finally(remote.close);
  if (!result.ledgerFailure && result.runId && !options.dryRun) await keepRunResults(options.ledgerPath, result.runId, logger);
  if (!result.ledgerFailure) await recordScheduledRun(options.ledgerPath, result.report, { schedule: request.schedule.name, host: hostname(), ref: result.runId ?? null, logger, isLedgerOptional: options.dryRun });
  const message = result.ledgerFailure?.message ?? result.apiUnusable?.message ?? (result.interrupted ? 'the run stopped before every order was sent; the next occurrence sends the rest' : null);
  await (await watchRun(options, logger, (line) => logger.warn(line))).finish({ command: 'import', runId: result.runId ?? null, exitCode: importExitCode(result), report: result.report });
  return { exitCode: importExitCode(result), summary: result.report.summary, runId: result.runId ?? null, message };
}

async function reconcileOccurrence(flags: ParsedArgs['flags'], options: ResolvedOptions, logger: Logger, request: RunRequest): Promise<RunResult> {
  const text = (key: string) => (typeof flags[key] === 'string' ? (flags[key] as string) : undefined);
  const { parseHours, parseSince } = await import('../options.js');
  const { runReconcile } = await import('../reconcile/run-reconcile.js');
  const { prepareRemoteRun } = await import('../remote/remote-run.js');
  const remote = await prepareRemoteRun({ command: 'reconcile', out: options.out, confirmations: text('confirmations') }, remoteContextOf(options));
  const result = await runReconcile({
    ...apiSettingsOf(options),
    now: options.now,
    isNowPinned: options.isNowPinned,
    since: text('since') === undefined ? undefined : parseSince(text('since')!),
    hours: text('hours') === undefined ? undefined : parseHours(text('hours')!),
    ordersFile: text('orders'),
    all: flags.all === true,
    out: remote.out,
    confirmationsPath: remote.confirmations,
    lateAfterDays: options.lateAfterDays,
    sheet: options.sheet,
    timezone: options.timezone,
    logger,
  }).catch(remote.abandon);
  try {
    await remote.finish(result.report).finally(remote.close);
    await recordScheduledRun(options.ledgerPath, result.report, { schedule: request.schedule.name, host: hostname(), ref: null, logger, isLedgerOptional: true });
    await (await watchRun(options, logger, (line) => logger.warn(line))).finish({ command: 'reconcile', runId: null, exitCode: reconcileExitCode(result), report: result.report });
  } finally {
    result.release();
  }
  return { exitCode: reconcileExitCode(result), summary: result.report.summary, runId: null, message: null };
}
