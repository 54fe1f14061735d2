/** `order-batch serve`: the web app until Ctrl-C or SIGTERM, which lets the submissions in flight finish. */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { addCommonOptions, addConnectionHelp, apiSettingsOf, checkContextOf, loggerFor, parseNumberFlag, resolveFlags } from './command-options.js';
import { addRunWatchOptions } from './run-watch.js';
import { startSchedules } from './schedules.js';
import { onInterrupt } from './signals.js';
import { parseShutdownGrace, withinGrace } from './shutdown-grace.js';

interface ServeFlags extends RawFlags {
  port?: string;
  host?: string;
  maxUploadMb?: string;
  allowedHost?: string[];
  checksAtOnce?: string;
  shutdownGrace?: string;
  /** False with --no-schedules. */
  schedules?: boolean;
}

export function addServeCommand(program: Command, run: CliRun): void {
  const command = addCommonOptions(
    program
      .command('serve')
      .description('the local web app for operations staff')
      .option('--port <n>', 'port to listen on (0 picks a free one)', '8080')
      .option('--host <host>', 'address to bind (127.0.0.1: this computer only; any other needs accounts, see `users add`)', '127.0.0.1')
      .option('--allowed-host <name...>', 'further names the app is reached by (e.g. its DNS name on the network; behind a proxy, the public name)')
      .option(
        '--trust-proxy [hops|addresses]',
        'behind a TLS reverse proxy: how many proxies stand before the app (bare: 1) or their addresses (10.0.0.0/8,127.0.0.1); client address, host and scheme from X-Forwarded-*, Secure cookies; needs accounts and --allowed-host',
      )
      .option('--session-idle <duration>', 'how long a login lasts without use (default 8h)')
      .option('--session-max <duration>', 'how long a login lasts at most, however busy (default 12h)')
      .option('--retention-days <n>', 'remove uploads, results and reconciliations older than this (default 90)')
      .option('--sandbox', "send orders to one embedded sandbox for the server's lifetime")
      .option('--ledger <path|url>', 'the ledger: a file (default .order-batch/ledger.db; the sandbox has its own) or a postgres:// URL shared by a team')
      .option('--team-concurrency <n>', "this run's share: at most n orders sent at once, within the team's cap the ledger holds (ledger set team-concurrency); it can lower the run's share, never raise the cap")
      .option('--claim-lease <seconds>', "how long a dead run's orders wait before another run takes them over (PostgreSQL; default 120)")
      .option('--concurrency <n>', 'orders sent at once (default 8)')
      .option('--max-attempts <n>', 'attempts per order for transient failures (default 6)')
      .option('--late-after-days <n>', 'reconciliations: a line not shipped this many whole days after its order date is late (default 3)')
      .option('--max-upload-mb <n>', 'largest sheet accepted, in MB (default 50)')
      .option('--checks-at-once <n>', 'uploads checked at once; the others wait their turn, their place shown (default 2)')
      .option('--shutdown-grace <seconds>', 'on SIGTERM, how long the submission in flight gets to reach a safe point before it is handed back to the queue and the app exits (default 30)')
      .option('--oidc-issuer <url>', 'offer the company login (OpenID Connect) of this issuer; the client from ORDER_BATCH_OIDC_CLIENT_ID and ORDER_BATCH_OIDC_CLIENT_SECRET')
      .option('--oidc-default-role <role>', 'role of a person at their first company login when no group maps to one: viewer (default), operator, or none (refused)')
      .option('--oidc-only', 'the login page offers the company login only (no passwords)')
      .option('--no-schedules', "do not run the config file's schedules here (another host's `order-batch scheduler` does)"),
    {
      out: false,
      json: false,
      now: "evaluate the uploaded sheets' date rules as of this instant (default: when each is checked; the sandbox's clock with --sandbox)",
      timezone: 'zone for dates written without an offset in uploaded sheets (default UTC)',
      sheet: false,
    },
  );
  addConnectionHelp(addRunWatchOptions(command, { isService: true })).action(async (flags: ServeFlags) => {
    const options = resolveFlags(flags);
    const port = Number(flags.port ?? '8080');
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number from 0 to 65535, not "${flags.port}".`);
    const maxUploadMb = Number(flags.maxUploadMb ?? '50');
    if (!Number.isFinite(maxUploadMb) || maxUploadMb < 1 || maxUploadMb > 1024) throw new UsageError(`--max-upload-mb takes a size from 1 to 1024, not "${flags.maxUploadMb}".`);
    // The schedules' args are checked before the app listens: a bad one stops serve at start.
    const schedules = flags.schedules !== false && options.schedules.length > 0 ? await startSchedules(options, flags, loggerFor(options)) : null;
    const { runServe } = await import('../web/server.js');
    const app = await runServe({
      ...apiSettingsOf(options),
      port,
      host: flags.host ?? '127.0.0.1',
      context: checkContextOf(options),
      lateAfterDays: options.lateAfterDays,
      ...(options.teamConcurrency ? { teamConcurrency: options.teamConcurrency } : {}),
      maxUploadBytes: Math.round(maxUploadMb * 1024 * 1024),
      logger: loggerFor(options),
      ...(options.isNowPinned ? { now: options.now } : {}),
      ...(flags.allowedHost ? { allowedHosts: flags.allowedHost } : {}),
      ...(flags.checksAtOnce !== undefined ? { checksAtOnce: parseNumberFlag('checks-at-once', flags.checksAtOnce, { min: 1, max: 64, integer: true })! } : {}),
      trustProxy: options.trustProxy,
      sessionIdleMs: options.sessionIdleMs,
      sessionMaxMs: options.sessionMaxMs,
      retentionDays: options.retentionDays,
      notify: options.notify,
      ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
      ...(options.oidc ? { oidc: options.oidc } : {}),
      print: (line: string) => run.printLine(line),
    }).catch(async (error: unknown) => {
      await schedules?.stop();
      throw error;
    });
    schedules?.scheduler.start();
    // As the CLI's import: the first Ctrl-C or SIGTERM sends nothing more and lets the answers in
    // flight come back (the submission's result is written); a second one quits at once.
    const interruption = onInterrupt(
      'order-batch: stopping: sending no more orders; the ones in flight finish, and the running submission goes back to the queue in the ledger',
    );
    const graceSeconds = parseShutdownGrace(flags.shutdownGrace);
    await new Promise<void>((done) => interruption.signal.addEventListener('abort', () => done(), { once: true }));
    const { describeStopped } = await import('../web/jobs.js');
    // A scheduled run in flight gets the same grace as a submission.
    const stopped = await withinGrace(Promise.all([schedules?.stop(), app.close()]).then(([, closed]) => closed), graceSeconds);
    if (stopped === 'late') {
      await schedules?.abandon();
      await app.abandon();
      run.warn(`the work in flight did not reach a safe point within ${graceSeconds} s: the submission and the schedule occurrence running (with the remote sheets it claimed) are let go of, for another instance or the next start (which looks up every order in doubt before sending it again).`);
      interruption.dispose();
      process.exit(run.exitCode);
    }
    for (const line of describeStopped(stopped)) run.warn(line);
    interruption.dispose();
  });
}
