/**
 * `order-batch scheduler` (the config file's schedules, without the web app, until SIGTERM),
 * `order-batch schedules list [--json]` and `order-batch schedules run <name>`. `serve` starts the same
 * scheduler through startSchedules.
 */
import type { Command } from 'commander';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RawFlags, ResolvedOptions } from '../options.js';
import type { Ledger } from '../ledger/index.js';
import { redactLedgerLocation } from '../ledger/index.js';
import type { Scheduler } from '../schedules/scheduler.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, processEnvironment, resolveFlags } from './command-options.js';
import { parseShutdownGrace, withinGrace } from './shutdown-grace.js';
import { onInterrupt } from './signals.js';

const CONFIG_HELP = 'JSON config file holding "schedules" (and ledger, baseUrl, ...: see docs/schedules.md)';
const LEDGER_HELP = 'the ledger the occurrences are claimed in: a file, or a postgres:// URL shared by the team (default .order-batch/ledger.db)';

function addSchedulerOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', CONFIG_HELP)
    .option('--ledger <path|url>', LEDGER_HELP)
    .option('--claim-lease <seconds>', "how long an occurrence whose instance died waits before another instance finishes it (default 120)")
    .option('--log-level <level>', 'how much the log on stderr says: fatal, error, warn, info (default), debug, trace or silent');
}

/** The scheduler of `scheduler` and `serve`: the ledger it claims occurrences in stays open until stop. */
export async function startSchedules(options: ResolvedOptions, flags: RawFlags, logger: Logger): Promise<{ scheduler: Scheduler; ledger: Ledger; stop(): Promise<void>; abandon(): Promise<void> }> {
  if (options.schedules.length === 0) throw new UsageError(`no schedules to run: the config file${flags.config ? ` ${flags.config}` : ''} has no "schedules" (see docs/schedules.md).`);
  const { resolveScheduleArgs, createScheduledRunner } = await import('./scheduled-run.js');
  const base = { ...flags, ledger: options.ledgerPath };
  for (const schedule of options.schedules) await resolveScheduleArgs(schedule, base, processEnvironment(), new Date());
  const { openLedger } = await import('../ledger/index.js');
  const { createScheduler } = await import('../schedules/scheduler.js');
  const ledger = await openLedger(options.ledgerPath, { logger, claimLeaseMs: options.claimLeaseMs });
  const clock = () => new Date();
  const scheduler = createScheduler({
    schedules: options.schedules,
    store: ledger.schedules,
    // The runs use the ledger the occurrences are claimed in, whatever the command's own default would be.
    runOccurrence: createScheduledRunner({ base, env: processEnvironment(), clock, logger }),
    clock,
    leaseMs: options.claimLeaseMs,
    host: `${hostname()} ${process.pid}`,
    logger,
  });
  return {
    scheduler,
    ledger,
    async stop() {
      await scheduler.stop();
      await ledger.close();
    },
    // The running occurrence's orders first, then the occurrence (run-claimed.ts): the instance that takes it finds its orders free.
    abandon: () => scheduler.abandon(),
  };
}

export function addSchedulerCommand(program: Command, run: CliRun): void {
  addSchedulerOptions(
    program
      .command('scheduler')
      .description("run the config file's schedules without the web app (a host that only runs batches), until SIGTERM"),
  )
    .option('--shutdown-grace <seconds>', 'on SIGTERM, how long the running occurrence gets to finish before it is let go of (its orders, the remote sheets it claimed, the occurrence) for another instance and the scheduler exits (default 30)')
    .action(async (flags: RawFlags & { shutdownGrace?: string }) => {
      const options = resolveFlags(flags);
      const graceSeconds = parseShutdownGrace(flags.shutdownGrace);
      const logger = loggerFor(options);
      const schedules = await startSchedules(options, flags, logger);
      const interruption = onInterrupt(`order-batch: stopping: taking no more schedule occurrences; the running one finishes within ${graceSeconds} s or is let go of`);
      schedules.scheduler.start();
      run.printLine(`scheduler: ${options.schedules.length} schedule${options.schedules.length === 1 ? '' : 's'} (${options.schedules.map((s) => s.name).join(', ')}) on the ledger ${redactLedgerLocation(options.ledgerPath)}`);
      await new Promise<void>((done) => interruption.signal.addEventListener('abort', () => done(), { once: true }));
      if ((await withinGrace(schedules.stop(), graceSeconds)) === 'late') {
        // Orders first, then the remote sheets, then the occurrence (run-claimed.ts): whoever takes it finds all three free.
        await schedules.abandon();
        run.warn(`the schedule occurrence running did not finish within ${graceSeconds} s: it is let go of, with its orders and the remote sheets it claimed, for another instance or the next start (which looks up every order in doubt before sending it again).`);
        interruption.dispose();
        process.exit(run.exitCode);
      }
      interruption.dispose();
    });

  const schedules = program.command('schedules').description("the config file's schedules: their next occurrences and last outcomes, or one run now");
  addSchedulerOptions(
    schedules
      .command('list')
      .description('each schedule: cron, zone, next occurrences, last outcome and where it ran')
      .option('--json', 'print them as JSON on stdout'),
  ).action(async (flags: RawFlags) => {
    const options = resolveFlags(flags);
    const logger = loggerFor(options);
    const { describeSchedule, formatScheduleList } = await import('../schedules/list.js');
    const { ledgerExists, openLedger } = await import('../ledger/index.js');
    const ledger = ledgerExists(options.ledgerPath) ? await openLedger(options.ledgerPath, { logger }) : null;
    try {
      const now = options.now;
      const entries = [];
      for (const schedule of options.schedules) entries.push(describeSchedule(schedule, (await ledger?.schedules.list({ schedule: schedule.name, limit: 20 })) ?? [], now));
      if (options.json) await run.printJson({ command: 'schedules list', now: now.toISOString(), schedules: entries });
      else process.stdout.write(formatScheduleList(entries));
    } finally {
      await ledger?.close();
    }
  });

  addSchedulerOptions(
    schedules
      .command('run')
      .description('run one schedule now, once (claimed in the ledger like its timed occurrences)')
      .argument('<name>', "the schedule's name"),
  ).action(async (name: string, flags: RawFlags) => {
    const options = resolveFlags(flags);
    const logger = loggerFor(options);
    if (!options.schedules.some((s) => s.name === name)) {
      const known = options.schedules.map((s) => s.name).join(', ');
      throw new UsageError(`no schedule named "${name}" in the config file${known ? ` (it has ${known})` : ' (it has none)'}.`);
    }
    const started = await startSchedules(options, flags, logger);
    try {
      const { describeOccurrence } = await import('../schedules/list.js');
      const record = await started.scheduler.runNow(name);
      run.printLine(`${name}: ${describeOccurrence(record!)}`);
      run.exitCode = record!.exitCode ?? 1;
    } finally {
      await started.stop();
    }
  });
}
