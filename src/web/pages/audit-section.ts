/** The audit trail on the history page: who did what, when and from where, filtered by person and date. */
import { describeAuditAction } from '../../audit/describe.js';
import type { AuditRecord } from '../../ledger/index.js';
import { html, type SafeHtml } from '../html.js';
import { formatTime } from './layout.js';

export interface AuditView {
  actor: string;
  /** YYYY-MM-DD, inclusive, UTC. */
  since: string;
  until: string;
  /** The next page starts before this entry. */
  before?: number;
}

export const AUDIT_PAGE = 100;

export function renderAuditSection(entries: readonly AuditRecord[], actors: readonly string[], view: AuditView): SafeHtml {
  const options = [html`<option value="">Everyone</option>`].concat(actors.map((a) => html`<option value="${a}"${a === view.actor ? html` selected` : ''}>${a}</option>`));
  const rows = entries.map(
    (e) => html`<tr><th scope="row">${formatTime(e.at)}</th><td>${e.actor}</td><td>${e.via === 'cli' ? 'command line' : 'web'}${e.address ? html`, ${e.address}` : ''}</td><td>${describeAuditAction(e)}</td></tr>`,
  );
  const last = entries.at(-1);
  const next = entries.length === AUDIT_PAGE && last ? `/history?${new URLSearchParams({ actor: view.actor, since: view.since, until: view.until, before: String(last.seq) }).toString()}#audit-heading` : undefined;
  return html`<section class="panel" aria-labelledby="audit-heading">
<h2 id="audit-heading">Who did what</h2>
<form method="get" action="/history" class="filter-form">
  <label for="audit-actor" class="field-label">Person</label> <select id="audit-actor" name="actor">${options}</select>
  <label for="audit-since" class="field-label">From</label> <input type="date" id="audit-since" name="since" value="${view.since}">
  <label for="audit-until" class="field-label">To</label> <input type="date" id="audit-until" name="until" value="${view.until}">
  <button type="submit" class="button">Filter</button>
</form>
${entries.length === 0
  ? html`<p>Nothing recorded for this selection.</p>`
  : html`<div class="table-wrap" role="region" aria-labelledby="audit-caption" tabindex="0"><table class="audit-table" data-audit>
<caption id="audit-caption">Newest first: checks, submissions, cancellations, reconciliations, downloads, logins and account changes, from this page and the command line.</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">From</th><th scope="col">What</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
${next ? html`<p><a href="${next}">Older entries</a></p>` : ''}
</section>`;
}

/** The query of the audit section from the page's parameters: dates as whole UTC days. */
export function auditQueryOf(view: AuditView): { actor?: string; since?: string; until?: string; beforeSeq?: number; limit: number } {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const until = day.test(view.until) ? new Date(Date.parse(`${view.until}T00:00:00Z`) + 86_400_000).toISOString() : undefined;
  return {
    ...(view.actor ? { actor: view.actor } : {}),
    ...(day.test(view.since) ? { since: `${view.since}T00:00:00.000Z` } : {}),
    ...(until ? { until } : {}),
    ...(view.before !== undefined ? { beforeSeq: view.before } : {}),
    limit: AUDIT_PAGE,
  };
}
