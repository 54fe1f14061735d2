/**
 * A submission's page: live progress while it runs (the script polls the JSON twin of this page;
 * without script the page refreshes itself), whoever's instance runs it, then the outcome of every
 * order and the result workbook. Operators can cancel it while it is queued or running.
 */
import { html, plural, type SafeHtml } from '../html.js';
import type { JobView } from '../jobs.js';
import { formatDuration, percentDone } from '../progress.js';
import { csrfField, formatTime, layout, mayDo, statusBadge, type PageContext } from './layout.js';

const PROGRESS_STATUSES = ['accepted', 'rejected', 'failed', 'already_submitted'] as const;

export interface JobProgressJson {
  id: string;
  state: JobView['state'];
  done: number;
  total: number;
  percent: number;
  counts: Record<string, number>;
  etaSeconds: number | null;
  /** The sentence the page shows (and screen readers hear) about where the job stands. */
  message: string;
  summary?: Record<string, number>;
  resultUrl?: string;
  error?: string;
  cancelRequestedBy?: string;
}

export function progressJson(job: JobView): JobProgressJson {
  const counts = Object.fromEntries(PROGRESS_STATUSES.map((s) => [s, job.progress.byStatus[s] ?? 0]));
  const outcome = job.outcome ?? {};
  return {
    id: job.id,
    state: job.state,
    done: job.progress.done,
    total: job.progress.total,
    percent: job.state === 'done' ? 100 : percentDone(job.progress.done, job.progress.total),
    counts,
    etaSeconds: job.etaSeconds,
    message: stateMessage(job),
    ...(outcome.summary ? { summary: outcome.summary } : {}),
    ...(outcome.resultFile ? { resultUrl: `/jobs/${job.id}/result` } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(job.cancelRequestedBy ? { cancelRequestedBy: job.cancelRequestedBy } : {}),
  };
}

function stateMessage(job: JobView): string {
  const { done, total } = job.progress;
  switch (job.state) {
    case 'queued':
      return job.starts > 0 ? `Paused with ${done} of ${plural(total, 'order')} done; waiting for an instance to resume it…` : 'Waiting for the submissions before it to finish…';
    case 'running': {
      const resumed = job.starts > 1 ? ' (resumed: what was sent before is looked up, never sent again)' : '';
      if (job.cancelRequestedBy) return `Cancelling: sending nothing more, waiting for the answers in flight…`;
      if (done === 0) return `Checking ${plural(total, 'order')} with the API…${resumed}`;
      return `${done} of ${plural(total, 'order')} done${job.etaSeconds !== null && done < total ? `, ${formatDuration(job.etaSeconds)} left` : ''}.${resumed}`;
    }
    case 'done':
      return `Finished: ${describeSummary(job.outcome?.summary ?? {})}.`;
    case 'cancelled':
      return `Cancelled by ${job.cancelRequestedBy ?? 'someone'}: ${describeSummary(job.outcome?.summary ?? {})}.`;
    case 'failed':
      return `The submission could not run: ${job.outcome?.error ?? 'unknown error'}`;
  }
}

export function describeSummary(summary: Record<string, number>): string {
  const parts = Object.entries(summary)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status.replace(/_/g, ' ')}`);
  return parts.length ? parts.join(', ') : 'no orders';
}

export function renderJobPage(ctx: PageContext, job: JobView): SafeHtml {
  const isActive = job.state === 'queued' || job.state === 'running';
  const json = progressJson(job);
  const head = isActive ? html`<noscript><meta http-equiv="refresh" content="2"></noscript>` : undefined;
  const counts = PROGRESS_STATUSES.map(
    (s) => html`<div class="count"><dt>${statusBadge(s)}</dt><dd data-progress-count="${s}">${json.counts[s] ?? 0}</dd></div>`,
  );
  const canCancel = isActive && !job.cancelRequestedBy && mayDo(ctx, 'submit');
  const body = html`<h1>Submitting ${job.fileName}</h1>
<p class="meta">Submitted by ${job.createdBy} at ${formatTime(job.createdAt)}${job.finishedAt ? html`; ended ${formatTime(job.finishedAt)}` : ''}. <a href="/uploads/${job.uploadId}">Back to the check of this sheet</a></p>
<section class="panel job" data-job="${job.id}" data-state="${job.state}" aria-labelledby="progress-heading">
  <h2 id="progress-heading">Progress</h2>
  <p class="job-message" data-job-message role="status">${json.message}</p>
  <label for="job-progress" class="field-label">Orders done</label>
  <progress id="job-progress" data-job-progress max="${Math.max(1, json.total)}" value="${job.state === 'done' ? Math.max(1, json.total) : json.done}">${json.percent}%</progress>
  <p class="progress-numbers"><span data-job-done>${json.done}</span> of <span data-job-total>${json.total}</span> orders done<span data-job-eta>${json.etaSeconds !== null && isActive ? `, ${formatDuration(json.etaSeconds)} left` : ''}</span></p>
  <dl class="counts counts-inline">${counts}</dl>
  ${canCancel ? html`<form method="post" action="/jobs/${job.id}/cancel" class="cancel-form" data-cancel>${csrfField(ctx)}<button type="submit" class="button button-danger">Cancel the submission</button>
  <span class="help">Sends nothing more; the orders in flight keep their answers, the others are not sent.</span></form>` : ''}
</section>
${job.outcome?.notice ? html`<div class="notice notice-warn"><p>${job.outcome.notice}</p></div>` : ''}
${job.state === 'failed' ? html`<div class="notice notice-bad" role="alert"><p>${job.outcome?.error ?? 'The submission could not run.'}</p></div>` : ''}
${job.state === 'done' || job.state === 'cancelled' ? renderOutcome(job) : ''}`;
  return layout({ title: `Submitting ${job.fileName}`, section: 'upload', ctx, body, ...(head ? { head } : {}) });
}

function renderOutcome(job: JobView): SafeHtml {
  const outcome = job.outcome ?? {};
  const summary = outcome.summary ?? {};
  const repeated = summary.already_submitted ?? 0;
  const toFix = (summary.invalid ?? 0) + (summary.rejected ?? 0);
  const orders = outcome.orders ?? [];
  const rows = orders.map(
    (o) => html`<tr><th scope="row">${o.customerOrderId ?? '(no id)'}</th><td>${o.rows.join(', ')}</td><td>${statusBadge(o.status)}</td><td>${o.messages.length > 1 ? html`<ul class="messages">${o.messages.map((m) => html`<li>${m}</li>`)}</ul>` : (o.messages[0] ?? '')}</td></tr>`,
  );
  return html`<section class="panel" aria-labelledby="outcome-heading">
<h2 id="outcome-heading">Outcome</h2>
<p class="outcome" data-outcome>${describeSummary(summary)}.</p>
${toFix > 0 ? html`<p>${plural(toFix, 'order')} ${toFix === 1 ? 'needs' : 'need'} correcting: the result workbook's <strong>Fix</strong> sheet holds just their rows, ready to correct and upload again.</p>` : ''}
${(summary.failed ?? 0) > 0 ? html`<p>${plural(summary.failed ?? 0, 'order')} failed on the way (the API was in trouble): submit the sheet again later; nothing is sent twice.</p>` : ''}
${repeated > 0 ? html`<p class="notice notice-info" data-already-submitted><span aria-hidden="true">↺</span> ${plural(repeated, 'order')} ${repeated === 1 ? 'was' : 'were'} already submitted before: nothing was sent twice.</p>` : ''}
${outcome.resultFile ? html`<p><a class="button button-primary" href="/jobs/${job.id}/result" download data-download="job-result">Download the result workbook (${outcome.resultFile})</a></p>` : ''}
${orders.length
  ? html`<div class="table-wrap" role="region" aria-labelledby="orders-caption" tabindex="0"><table class="orders-table">
<caption id="orders-caption">Each order of the sheet and what happened to it.</caption>
<thead><tr><th scope="col">Order</th><th scope="col">Rows</th><th scope="col">Outcome</th><th scope="col">Message</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
  : ''}
<p><a href="/">Check another sheet</a> · <a href="/history">History</a> · <a href="/reconcile">Reconciliation</a></p>
</section>`;
}
