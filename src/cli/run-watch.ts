/**
 * What import and reconcile do for an unattended run, around the run itself: --notify and
 * --notify-on (tell someone how it went), --metrics-file (the run's metrics for node_exporter),
 * --public-url (a link in the notification), --ledger-outage (how long a lost ledger is waited for).
 * Neither a notification nor the metrics file changes the run's exit code: a failure is a warning.
 */
import { Option, type Command } from 'commander';
import type { ResolvedOptions } from '../options.js';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { JsonReport } from '../run-report/json.js';

export function addRunWatchOptions(cmd: Command, options: { isService?: boolean } = {}): Command {
  cmd
    .addOption(new Option('--notify <target>', 'tell mailto:a@example.com[,b@example.com] (through ORDER_BATCH_SMTP_URL) or an https:// webhook how the run went (repeatable)').argParser(collect))
    .option('--notify-on <when>', 'problems (default: exit code not 0, an order invalid, rejected or failed, a shipment late or in exception) or always')
    .option('--public-url <url>', "the web app's address as people reach it, for a link in the notification");
  if (!options.isService) cmd.option('--metrics-file <path>', "write the run's metrics in Prometheus' text format (for node_exporter's textfile collector), atomically");
  return cmd.option('--ledger-outage <seconds>', 'how long a run waits for a PostgreSQL ledger that stopped answering before it stops with exit 3 (default 120)');
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export interface RunWatch {
  /**
   * After the run, its report printed: the metrics file written and the notifications sent (both awaited,
   * neither throws); a failed delivery is audited in the run's ledger, still open (its run lock, if any, released).
   */
  finish(run: { command: 'import' | 'reconcile'; runId: string | null; exitCode: number; report: JsonReport; ledger: Ledger | undefined }): Promise<void>;
  /** Stops counting without a file or a notification: the run ended in an error that is reported elsewhere. */
  drop(): void;
}

/** Starts counting the run's API requests and ledger errors when a metrics file is asked for: call it before the run. */
export async function watchRun(options: ResolvedOptions, logger: Logger, warn: (line: string) => void): Promise<RunWatch> {
  const wantsMetrics = options.metricsFile !== undefined;
  const metricsModule = wantsMetrics ? await import('../metrics/registry.js') : undefined;
  const metrics = metricsModule?.createMetrics();
  const unwatch = metrics ? metricsModule!.observeInto(metrics) : () => undefined;
  return {
    drop: unwatch,
    async finish(run) {
      unwatch();
      const { notifyRun } = await import('../notify/notify-run.js');
      const { recordNotifyFailure } = await import('../notify/record-failure.js');
      const notified = await notifyRun({
        settings: options.notify,
        facts: { command: run.command, runId: run.runId, exitCode: run.exitCode, report: run.report },
        logger,
        onFailure: (failure) => recordNotifyFailure(run.ledger, failure, { logger, ref: run.runId }),
      });
      for (const failure of notified.failed) warn(`the notification (${failure.target}) could not be delivered: ${failure.reason}; the run's results stand.`);
      if (metrics && options.metricsFile) {
        metricsModule!.recordRun(metrics, { command: run.command, exitCode: run.exitCode, summary: run.report.summary, finishedAt: new Date() });
        if (notified.failed.length > 0) metrics.notificationFailures.inc(notified.failed.length);
        const { writeMetricsFile } = await import('../metrics/metrics-file.js');
        await writeMetricsFile(options.metricsFile, metrics).catch((error: unknown) => warn(`${(error as Error).message}.`));
      }
    },
  };
}
