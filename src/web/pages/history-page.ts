/** Every run the ledger remembers, newest first, the web app's and the command line's alike. */
import { basename } from 'node:path';
import type { FileUsage, RunRecord } from '../../ledger/index.js';
import { html, type SafeHtml } from '../html.js';
import { formatBytes } from './upload-page.js';
import { describeSummary } from './job-page.js';
import { formatTime, layout, type PageContext } from './layout.js';

export interface HistoryEntry {
  run: RunRecord;
  /** The web app's job for this run, if it started it. */
  jobId?: string;
  /** The schedule whose occurrence ran it, if one did. */
  schedule?: string;
  /** For each result file: true when it lies in the work folder (so it can be downloaded here). */
  isServable: boolean[];
}

export function renderHistoryPage(
  ctx: PageContext,
  entries: readonly HistoryEntry[],
  options: { ledgerPath: string; limit: number; audit: SafeHtml; usage: FileUsage; retentionDays: number },
): SafeHtml {
  const rows = entries.map(({ run, jobId, schedule, isServable }) => {
    const files = run.files.map((f) => basename(f.file)).join(', ');
    // A submission's result is kept with its job, in the ledger: served by whichever instance is asked.
    const results = run.resultFiles.map((file, i) =>
      jobId
        ? html`<li><a href="/jobs/${jobId}/result" download>${basename(file)}</a></li>`
        : isServable[i]
          ? html`<li><a href="/runs/${run.runId}/files/${i}" download>${basename(file)}</a></li>`
          : html`<li>${basename(file)} <span class="help">(saved outside the web app's folder: ${file})</span></li>`,
    );
    return html`<tr>
<th scope="row">${formatTime(run.startedAt)}</th>
<td>${run.command}${schedule ? html`<br><span class="help">schedule ${schedule}</span>` : ''}</td>
<td>${files || '—'}</td>
<td>${summaryText(run)}</td>
<td>${results.length ? html`<ul class="plain-list">${results}</ul>` : '—'}</td>
<td>${jobId ? html`<a href="/jobs/${jobId}">Details</a>` : ''}</td>
</tr>`;
  });
  const body = html`<h1>History</h1>
<p class="lead">Runs recorded in the ledger (${options.ledgerPath}), newest first: submissions from this page, from the command line and from schedules, and reconciliations.</p>
${entries.length === 0
  ? html`<p>No runs yet. <a href="/">Check a sheet</a> and submit it, and it appears here.</p>`
  : html`<div class="table-wrap" role="region" aria-labelledby="history-caption" tabindex="0"><table class="history-table">
<caption id="history-caption">The last ${options.limit} runs at most, with their result files.</caption>
<thead><tr><th scope="col">Started</th><th scope="col">Command</th><th scope="col">Sheets</th><th scope="col">Outcome</th><th scope="col">Result files</th><th scope="col"><span class="visually-hidden">Details</span></th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
${options.audit}
<section class="panel" aria-labelledby="space-heading">
<h2 id="space-heading">Space used</h2>
<p data-space-used>Uploads, results and reconciliations take ${formatBytes(options.usage.bytes)} in the ledger (${options.usage.files} file${options.usage.files === 1 ? '' : 's'}${options.usage.oldest ? `, the oldest from ${formatTime(options.usage.oldest)}` : ''}). They are removed ${options.retentionDays} days after they were made; the history of runs and the audit trail stay.</p>
</section>`;
  return layout({ title: 'History', section: 'history', ctx, body });
}

function summaryText(run: RunRecord): string {
  if (!run.finishedAt) return 'did not finish (stopped, or still running)';
  const summary = run.summary;
  if (typeof summary === 'object' && summary !== null) {
    const entries = Object.entries(summary as Record<string, unknown>);
    if (entries.every(([, v]) => typeof v === 'number')) return describeSummary(summary as Record<string, number>);
    const failed = (summary as { failed?: unknown }).failed;
    if (typeof failed === 'string') return `failed: ${failed}`;
  }
  return '';
}
