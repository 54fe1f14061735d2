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
import { redactUrlsIn } from '../redact.js';
import type { Schedule } from '../schedules/schedule-config.js';
import type { RunOccurrence, RunRequest, RunResult } from '../schedules/scheduler.js';
import { keepRunResults } from '../schedules/keep-results.js';
import { recordScheduledRun } from '../schedules/record-audit.js';
import { CliRun } from './cli-run.js';
import { failureOf } from './exit-codes.js';
import { reconcileExitCode } from '../run-report/exit-code.js';
import { addImportCommand, importThroughRemote } from './import.js';
import { addReconcileCommand, reconcileSettingsOf, type ReconcileFlags } from './reconcile.js';
import { remoteContextOf } from './remote-options.js';
import { openCommandLedger, withCommandLedger } from './cli-ledger.js';

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
    if (error instanceof CommanderError) throw new UsageError(`schedule "${schedule.name}": its args: ${redactUrlsIn(error.message.replace(/^error: /, ''))}`, { cause: error });
    throw error;
  }
  return parsed!;
}

/**
 * The schedule's args parsed and resolved as its run will resolve them (flags, environment, config
 * file): a value its command refuses (`--concurrency many`, `--hours soon`) stops the scheduler at
 * start, not the run at 2 a.m. A UsageError names the schedule; addresses in it are shown redacted.
 */
export async function resolveScheduleArgs(schedule: Schedule, base: RawFlags, env: Record<string, string | undefined>, now: Date): Promise<ParsedArgs & { resolved: ResolvedOptions }> {
  const { positional, flags } = await parseScheduleArgs(schedule);
  try {
    const resolved = resolveOptions({ ...flags, config: base.config, ledger: base.ledger, claimLease: flags.claimLease ?? base.claimLease, logLevel: base.logLevel }, env, now);
    if (schedule.command === 'reconcile') reconcileSettingsOf(resolved, flags as ReconcileFlags);
    return { positional, flags, resolved };
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`schedule "${schedule.name}": its args: ${redactUrlsIn(error.message)}`, { cause: error });
    throw error;
  }
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
      const { positional, flags, resolved } = await resolveScheduleArgs(request.schedule, options.base, options.env, options.clock());
      return request.schedule.command === 'import' ? await importOccurrence(positional, resolved, request, logger) : await reconcileOccurrence(flags, resolved, logger, request);
    } catch (error) {
      const failure = failureOf(error);
      return { exitCode: failure.exitCode, summary: null, runId: null, message: failure.message };
    }
  };
}

/** One occurrence's import: its own ledger opened once (with the occurrence's own lease and outage), handed to everything it does. */
async function importOccurrence(files: string[], options: ResolvedOptions, request: RunRequest, logger: Logger): Promise<RunResult> {
  const ledger = await openCommandLedger(options, logger);
  // A stop whose grace is over lets go of this run's orders at once, for another instance to take.
  request.letGoWith?.(() => ledger.abandonRuns());
  return withCommandLedger(ledger, async () => {
    const { result, exitCode } = await importThroughRemote(files, options, ledger, {
      logger,
      warn: (line) => logger.warn(line),
      run: { signal: request.signal, onRunStarted: request.onRunStarted },
      async record(result, kept) {
        if (kept && result.runId && !options.dryRun) await keepRunResults(kept, result.runId, logger);
        await recordScheduledRun(kept, result.report, { schedule: request.schedule.name, host: hostname(), ref: result.runId ?? null, logger });
      },
    });
    const message = result.ledgerFailure?.message ?? result.apiUnusable?.message ?? (result.interrupted ? 'the run stopped before every order was sent; the next occurrence sends the rest' : null);
    return { exitCode, summary: result.report.summary, runId: result.runId ?? null, message };
  });
}

/** One occurrence's reconcile: the ledger opened once when it reads one (--orders and --all may run without). */
async function reconcileOccurrence(flags: ParsedArgs['flags'], options: ResolvedOptions, logger: Logger, request: RunRequest): Promise<RunResult> {
  const { ledgerUseOf, runReconcile } = await import('../reconcile/run-reconcile.js');
  const { prepareRemoteRun } = await import('../remote/remote-run.js');
  const reconcileFlags = flags as ReconcileFlags;
  const settings = reconcileSettingsOf(options, reconcileFlags);
  const ledger = ledgerUseOf(settings) ? await openCommandLedger(options, logger) : undefined;
  return withCommandLedger(ledger, async () => {
    const remote = await prepareRemoteRun({ command: 'reconcile', out: options.out, confirmations: reconcileFlags.confirmations }, remoteContextOf(options));
    const watch = await watchRun(options, logger, (line) => logger.warn(line));
    const result = await runReconcile({ ...settings, ...(ledger ? { ledger } : {}), out: remote.out, confirmationsPath: remote.confirmations, placeConfirmations: remote.placeConfirmations, logger })
      .catch(remote.abandon)
      .catch((error: unknown) => {
        watch.drop();
        throw error;
      });
    const runId = result.runId ?? null;
    try {
      await remote.finish(result.report).finally(remote.close);
      if (ledger && runId) await keepRunResults(ledger, runId, logger);
      await recordScheduledRun(ledger, result.report, { schedule: request.schedule.name, host: hostname(), ref: runId, logger });
      await watch.finish({ command: 'reconcile', runId, exitCode: reconcileExitCode(result), report: result.report, ledger });
    } finally {
      result.release();
    }
    return { exitCode: reconcileExitCode(result), summary: result.report.summary, runId, message: null };
  });
}
