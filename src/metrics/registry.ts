/**
 * The service's and the run's metrics (PRODUCT.md section 9), with prom-client on a registry of their
 * own (never the library's global one: two servers in one test process count apart). Names follow
 * Prometheus' conventions: order_batch_ prefix, _total for counters, base units (seconds).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { addExchangeObserver } from '../api/exchange-observers.js';
import { addLedgerErrorObserver } from '../ledger/index.js';

export interface Metrics {
  registry: Registry;
  runs: Counter<'command' | 'outcome'>;
  orders: Counter<'status'>;
  apiRequests: Counter<'class'>;
  apiLatency: Histogram<'class'>;
  retries: Counter;
  jobs: Gauge<'state'>;
  ledgerErrors: Counter;
  failedLogins: Counter;
  notificationFailures: Counter;
  lastRunTimestamp: Gauge<'command'>;
  lastRunExitCode: Gauge<'command'>;
}

export interface MetricsSources {
  /** Jobs by state, read when /metrics is scraped (the ledger's queue is shared by every instance). */
  countJobs?: () => Promise<Record<string, number>>;
}

export function createMetrics(sources: MetricsSources = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    runs: new Counter({ name: 'order_batch_runs_total', help: 'Runs finished, by command and outcome (ok, problems, usage, unusable).', labelNames: ['command', 'outcome'], registers }),
    orders: new Counter({ name: 'order_batch_orders_total', help: 'Orders of finished runs, by status.', labelNames: ['status'], registers }),
    apiRequests: new Counter({ name: 'order_batch_api_requests_total', help: 'Requests to the fulfillment API, by status class (2xx, 4xx, 5xx, error: no answer).', labelNames: ['class'], registers }),
    apiLatency: new Histogram({
      name: 'order_batch_api_request_duration_seconds',
      help: 'Time from sending an API request to its whole answer, by status class.',
      labelNames: ['class'],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    retries: new Counter({ name: 'order_batch_api_retries_total', help: 'API requests retried after a transient failure.', registers }),
    jobs: new Gauge({
      name: 'order_batch_jobs',
      help: 'Web submissions in the ledger, by state (queued, running).',
      labelNames: ['state'],
      registers,
      async collect() {
        if (!sources.countJobs) return;
        const counts = await sources.countJobs().catch(() => undefined);
        if (!counts) return;
        for (const state of ['queued', 'running']) this.set({ state }, counts[state] ?? 0);
      },
    }),
    ledgerErrors: new Counter({ name: 'order_batch_ledger_errors_total', help: 'Ledger errors met: each outage of the database once, each operation that failed for good (a refused write, a full disk), each failed readiness check.', registers }),
    failedLogins: new Counter({ name: 'order_batch_failed_logins_total', help: 'Logins refused (wrong password, unknown or disabled account, throttled).', registers }),
    notificationFailures: new Counter({ name: 'order_batch_notification_failures_total', help: 'Notifications that could not be delivered within their bound.', registers }),
    lastRunTimestamp: new Gauge({ name: 'order_batch_last_run_timestamp_seconds', help: 'When the last run of each command finished (Unix time).', labelNames: ['command'], registers }),
    lastRunExitCode: new Gauge({ name: 'order_batch_last_run_exit_code', help: 'The exit code of the last run of each command.', labelNames: ['command'], registers }),
  };
}

/** 0 ok; 1 problems (orders to act on); 2 usage (a file or a setting); 3 unusable (the API or the ledger). */
const OUTCOMES = ['ok', 'problems', 'usage', 'unusable'] as const;

export function recordRun(metrics: Metrics, run: { command: string; exitCode: number; summary: Record<string, number>; finishedAt: Date }): void {
  metrics.runs.inc({ command: run.command, outcome: OUTCOMES[run.exitCode] ?? 'unusable' });
  for (const [status, count] of Object.entries(run.summary)) if (count > 0) metrics.orders.inc({ status }, count);
  metrics.lastRunTimestamp.set({ command: run.command }, Math.floor(run.finishedAt.getTime() / 1000));
  metrics.lastRunExitCode.set({ command: run.command }, run.exitCode);
}

export function statusClassOf(status: number | null): string {
  return status === null ? 'error' : `${Math.floor(status / 100)}xx`;
}

/** Counts the API's exchanges and retries into `metrics` until the returned function is called. */
export function watchApi(metrics: Metrics): () => void {
  return addExchangeObserver({
    onExchange: ({ status, seconds }) => {
      const label = { class: statusClassOf(status) };
      metrics.apiRequests.inc(label);
      metrics.apiLatency.observe(label, seconds);
    },
    onRetry: () => metrics.retries.inc(),
  });
}

/**
 * Counts into `metrics` what this process meets until the returned function is called: the API's
 * exchanges and retries, and the ledger's errors (each outage once, each failure that reached a caller).
 */
export function observeInto(metrics: Metrics): () => void {
  const unwatchApi = watchApi(metrics);
  const unwatchLedger = addLedgerErrorObserver(() => metrics.ledgerErrors.inc());
  return () => {
    unwatchApi();
    unwatchLedger();
  };
}
