/**
 * What follows a submission or a reconciliation of the web app, once its result is written: its
 * metrics counted, and its notification sent (in the background: a slow receiver never holds the
 * next job). A notification that cannot be delivered is logged, counted and audited.
 */
import { basename } from 'node:path';
import { importExitCode, reconcileExitCode } from '../run-report/exit-code.js';
import type { ImportResult } from '../import/import-options.js';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { recordRun, type Metrics } from '../metrics/registry.js';
import { notifyRun, type NotifySettings } from '../notify/notify-run.js';
import { notifyFailureEvent } from '../notify/record-failure.js';
import type { JsonReport } from '../run-report/json.js';

export interface RunAftermath {
  afterImport(outDir: string, result: ImportResult): void;
  afterReconcile(result: { hasExceptions: boolean; report: JsonReport }): void;
  /** Resolves once every notification started has been delivered or given up (tests, shutdown). */
  settled(): Promise<void>;
}

export function createRunAftermath(deps: { metrics: Metrics; notify?: NotifySettings; ledger: Ledger; logger: Logger; wallClock: () => Date }): RunAftermath {
  const pending = new Set<Promise<unknown>>();
  const after = (command: 'import' | 'reconcile', exitCode: number, report: JsonReport, runId: string | null, path: string) => {
    recordRun(deps.metrics, { command, exitCode, summary: report.summary, finishedAt: deps.wallClock() });
    if (!deps.notify || deps.notify.targets.length === 0) return;
    const delivery = notifyRun({
      settings: deps.notify,
      facts: { command, runId, exitCode, report },
      path,
      logger: deps.logger,
      onFailure: async (failure) => {
        deps.metrics.notificationFailures.inc();
        await deps.ledger.audit.record(notifyFailureEvent(failure, { actor: 'order-batch', via: 'web', address: null }, runId));
      },
    }).catch((error: unknown) => deps.logger.error({ err: error }, 'notification failed'));
    pending.add(delivery);
    void delivery.finally(() => pending.delete(delivery));
  };
  return {
    // The job's result folder is named for the job: its page is /jobs/<id>.
    afterImport: (outDir, result) => after('import', importExitCode(result), result.report, basename(outDir), `/jobs/${basename(outDir)}`),
    afterReconcile: (result) => after('reconcile', reconcileExitCode(result), result.report, null, '/reconcile'),
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
