/** The latest reconciliation: the roll-up as a chart and a table, every order with its tracking, the exceptions, the workbook. */
import { html, plural, type SafeHtml } from '../html.js';
import { renderBarChart } from '../chart.js';
import type { ReconcileSnapshot } from '../reconcile-runs.js';
import { csrfField, formatTime, layout, mayDo, type PageContext } from './layout.js';
import { renderReconcileOrders, type OrdersView } from './reconcile-orders.js';

const STATUS_LABELS: Record<string, string> = {
  waiting: 'Waiting',
  partially_shipped: 'Partially shipped',
  shipped: 'Shipped',
  delivered: 'Delivered',
  canceled: 'Canceled',
  exception: 'Exception',
  not_found: 'Not found',
};

export interface ReconcilePageOptions {
  latest?: ReconcileSnapshot;
  error?: string;
  /** The embedded sandbox's clock, when the app runs on it. */
  sandboxNow?: Date;
  apiProblem?: string;
  orders?: OrdersView;
  /** A reconciliation queued or running now, on whichever instance. */
  running?: { by: string; since: string; state: string };
}

export function renderReconcilePage(ctx: PageContext, options: ReconcilePageOptions): SafeHtml {
  const { latest } = options;
  const body = html`<h1>Reconciliation</h1>
<p class="lead">Pulls the orders submitted in the last 30 days, their packages and tracking from the API, and compares them with what was sent:
what shipped, what is late, canceled or replaced, and the tracking numbers to confirm to each marketplace.</p>
${options.error ? html`<div class="notice notice-bad" role="alert"><p><strong>Reconciliation did not run.</strong> ${options.error}</p></div>` : ''}
${options.apiProblem ? html`<div class="notice notice-warn"><p>${options.apiProblem}</p></div>` : ''}
${options.running ? html`<div class="notice" role="status" data-reconciliation-running><p>A reconciliation asked for by ${options.running.by} is ${options.running.state === 'queued' ? 'waiting its turn' : 'running'} since ${formatTime(options.running.since)}; this page shows it once it has finished.</p></div>` : ''}
${mayDo(ctx, 'reconcile')
  ? html`<form method="post" action="/reconcile" class="actions">${csrfField(ctx)}<button type="submit" class="button button-primary"${options.apiProblem ? html` disabled` : ''}>Reconcile now</button></form>`
  : html`<p class="help">Your account (${ctx.visitor?.role ?? 'none'}) reads reconciliations; an operator runs them.</p>`}
${latest ? renderSnapshot(latest, options.orders ?? { status: '', page: 1 }) : html`<p>No reconciliation yet.${mayDo(ctx, 'reconcile') ? html` Press <strong>Reconcile now</strong> once some orders were submitted.` : ''}</p>`}
${options.sandboxNow && mayDo(ctx, 'reconcile') ? renderSandboxClock(ctx, options.sandboxNow) : ''}`;
  return layout({ title: 'Reconciliation', section: 'reconcile', ctx, body, ...(options.running ? { head: html`<meta http-equiv="refresh" content="5">` } : {}) });
}

function renderSandboxClock(ctx: PageContext, now: Date): SafeHtml {
  return html`<section class="panel" aria-labelledby="clock-heading">
<h2 id="clock-heading">Sandbox clock</h2>
<p>The sandbox's simulated clock reads ${formatTime(now.toISOString())}. Orders clear, ship and are delivered as it moves on; reconcile again to see it.</p>
<form method="post" action="/sandbox/advance" class="sandbox-clock">
${csrfField(ctx)}
<label for="hours" class="field-label">Move the sandbox clock on by</label>
<select id="hours" name="hours"><option value="24">24 hours</option><option value="48">48 hours</option><option value="96" selected>96 hours</option></select>
<button type="submit" class="button">Move the clock</button>
</form>
</section>`;
}

function renderSnapshot(snapshot: ReconcileSnapshot, orders: OrdersView): SafeHtml {
  const statuses = Object.keys(STATUS_LABELS);
  const bars = statuses.map((s) => ({ label: STATUS_LABELS[s]!, value: snapshot.summary[s] ?? 0, className: `bar-${s}` }));
  const tableRows = statuses.map((s) => html`<tr><th scope="row">${STATUS_LABELS[s]}</th><td class="num" data-rollup="${s}">${snapshot.summary[s] ?? 0}</td></tr>`);
  const exceptions = snapshot.exceptions.map(
    (e) => html`<tr><th scope="row">${e.customerOrderId}</th><td>${e.marketplaceOrderId ?? ''}</td><td>${e.type.replace(/_/g, ' ')}</td><td>${e.detail}</td></tr>`,
  );
  return html`<section class="panel" aria-labelledby="rollup-heading">
<h2 id="rollup-heading">Latest roll-up</h2>
<p class="meta">As of ${formatTime(snapshot.asOf)} (run ${formatTime(snapshot.createdAt)}): ${plural(snapshot.orders, 'order')}.
<a href="/reconcile/${snapshot.id}/workbook" download data-download="reconciliation">Download the reconciliation workbook</a>
(Summary, Orders, Lines, Packages, Exceptions and Confirmations sheets).</p>
${renderConfirmationFiles(snapshot)}
<div class="rollup">
${renderBarChart(bars, { title: 'Orders by status', id: 'rollup-chart' })}
<table class="rollup-table"><caption>Orders by status</caption>
<thead><tr><th scope="col">Status</th><th scope="col" class="num">Orders</th></tr></thead>
<tbody>${tableRows}</tbody></table>
</div>
</section>
${renderReconcileOrders(snapshot, orders, STATUS_LABELS)}
<section class="panel" aria-labelledby="exceptions-heading">
<h2 id="exceptions-heading">Exceptions (${snapshot.exceptions.length + snapshot.exceptionsLeftOff})</h2>
${snapshot.exceptions.length === 0
  ? html`<p>No exceptions: nothing late, canceled, short or over-shipped, replaced or missing.</p>`
  : html`<div class="table-wrap" role="region" aria-labelledby="exceptions-caption" tabindex="0"><table class="exceptions-table">
<caption id="exceptions-caption">Orders that need a look, one line per exception.</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Marketplace order</th><th scope="col">Exception</th><th scope="col">Detail</th></tr></thead>
<tbody>${exceptions}</tbody></table></div>
${snapshot.exceptionsLeftOff > 0 ? html`<p>${plural(snapshot.exceptionsLeftOff, 'more exception')} in the workbook.</p>` : ''}`}
</section>`;
}

/** Each confirmation file of the run, to upload to its marketplace: new packages only, each confirmed once. */
function renderConfirmationFiles(snapshot: ReconcileSnapshot): SafeHtml | string {
  const files = snapshot.confirmations ?? [];
  if (files.length === 0) return '';
  const items = files.map(
    (f) =>
      html`<li><a href="/reconcile/${snapshot.id}/confirmations/${encodeURIComponent(f.name)}" download data-download="confirmations-${f.marketplace}">${f.name}</a> (${f.marketplace === 'generic' ? 'every marketplace' : f.marketplace}: ${plural(f.packages, 'new package')})</li>`,
  );
  const notes = (snapshot.confirmationNotes ?? []).map((n) => html`<p class="meta">${n}</p>`);
  return html`<p>Shipment confirmations to upload to each marketplace:</p><ul class="confirmation-files">${items}</ul>${notes}`;
}
