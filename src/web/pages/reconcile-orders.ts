/** The orders of a reconciliation as a table: status, tracking numbers linked to their tracking pages, exceptions; filtered by status and paged. */
import { html, plural, type SafeHtml } from '../html.js';
import type { ReconcileOrderRow, ReconcileSnapshot } from '../reconcile-runs.js';
import { statusBadge } from './layout.js';

export const ORDERS_PER_PAGE = 50;

export interface OrdersView {
  /** A roll-up status, or '' for all. */
  status: string;
  page: number;
}

export function renderReconcileOrders(snapshot: ReconcileSnapshot, view: OrdersView, labels: Record<string, string>): SafeHtml {
  const all = snapshot.orderRows ?? [];
  const matching = view.status ? all.filter((o) => o.status === view.status) : all;
  const pages = Math.max(1, Math.ceil(matching.length / ORDERS_PER_PAGE));
  const page = Math.min(Math.max(1, view.page), pages);
  const shown = matching.slice((page - 1) * ORDERS_PER_PAGE, page * ORDERS_PER_PAGE);
  const link = (p: number) => `/reconcile?status=${encodeURIComponent(view.status)}&page=${p}#orders-heading`;
  const options = [html`<option value="">All statuses (${all.length})</option>`].concat(
    Object.entries(labels).map(([status, label]) => {
      const n = all.filter((o) => o.status === status).length;
      return html`<option value="${status}"${status === view.status ? html` selected` : ''}>${label} (${n})</option>`;
    }),
  );
  return html`<section class="panel" aria-labelledby="orders-heading">
<h2 id="orders-heading">Orders</h2>
<form method="get" action="/reconcile" class="filter-form">
  <label for="order-status" class="field-label">Show</label>
  <select id="order-status" name="status">${options}</select>
  <input type="hidden" name="page" value="1">
  <button type="submit" class="button">Filter</button>
</form>
${shown.length === 0
  ? html`<p>No order ${view.status ? html`with the status ${labels[view.status] ?? view.status}` : 'in this reconciliation'}.</p>`
  : html`<div class="table-wrap" role="region" aria-labelledby="orders-caption" tabindex="0"><table class="orders-table" data-reconcile-orders>
<caption id="orders-caption">Showing ${shown.length} of ${plural(matching.length, 'order')}${pages > 1 ? ` (page ${page} of ${pages})` : ''}.</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Marketplace order</th><th scope="col">Status</th><th scope="col">Tracking</th><th scope="col">Exceptions</th></tr></thead>
<tbody>${shown.map(renderRow)}</tbody></table></div>`}
${pages > 1
  ? html`<nav class="pager" aria-label="Pages of orders">${page > 1 ? html`<a href="${link(page - 1)}">Previous page</a>` : ''} ${page < pages ? html`<a href="${link(page + 1)}">Next page</a>` : ''}</nav>`
  : ''}
${(snapshot.ordersLeftOff ?? 0) > 0 ? html`<p>${plural(snapshot.ordersLeftOff ?? 0, 'more order')} in the workbook.</p>` : ''}
</section>`;
}

function renderRow(order: ReconcileOrderRow): SafeHtml {
  const tracking = order.tracking.map((t) =>
    t.url ? html`<li><a href="${t.url}" rel="noopener noreferrer" target="_blank">${t.number}</a></li>` : html`<li>${t.number}</li>`,
  );
  return html`<tr data-status="${order.status}">
<th scope="row">${order.customerOrderId}</th>
<td>${order.marketplaceOrderId ?? ''}</td>
<td>${statusBadge(order.status)}</td>
<td>${tracking.length ? html`<ul class="plain-list">${tracking}</ul>` : '—'}</td>
<td>${order.exceptions.map((e) => e.replace(/_/g, ' ')).join(', ') || '—'}</td>
</tr>`;
}
