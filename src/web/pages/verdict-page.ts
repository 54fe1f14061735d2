/**
 * The verdict on one sheet: counts, what submitting would do (the ledger says what it already
 * has), downloads, and the rows with their bad cells highlighted and explained, filterable.
 */
import { html, plural, type SafeHtml } from '../html.js';
import { matchesFilter, PAGE_ROW_LIMITS, ROW_FILTERS, type RowFilter, type Verdict, type VerdictRow } from '../verdict.js';
import { csrfField, formatTime, layout, mayDo, statusBadge, type PageContext } from './layout.js';
import { renderRowsTable } from './rows-table.js';

export const ROWS_PER_PAGE = 500;

export interface SubmitState {
  /** Valid orders the ledger already holds as accepted, with when. */
  alreadySubmitted: Map<string, string | null>;
  /** Why nothing can be submitted from here (no API configured), if so. */
  apiProblem?: string;
  /** A submission of this upload that is queued or running. */
  activeJobId?: string;
}

const FILTER_LABELS: Record<RowFilter, string> = { all: 'All rows', invalid: 'Invalid', valid: 'Valid', warnings: 'With warnings' };

export function renderVerdictPage(ctx: PageContext, verdict: Verdict, view: { show: RowFilter; q: string; page: number; submit: SubmitState }): SafeHtml {
  const title = `Check of ${verdict.fileName}`;
  const intro = html`<h1>${verdict.fileName}</h1>
<p class="meta">Checked as of ${formatTime(verdict.checkedAsOf)}; dates without an offset read in ${verdict.timezone}${verdict.sheet ? html`; worksheet ${verdict.sheet}` : ''}.</p>`;
  if (verdict.error) {
    const body = html`${intro}
<div class="notice notice-bad" role="alert"><p><strong>${statusBadge('invalid')} This file could not be used.</strong> ${verdict.error.message}</p></div>
<p><a class="button" href="/">Check another sheet</a> <a href="/template.xlsx" download>Download the blank template</a></p>`;
    return layout({ title, section: 'upload', ctx, body });
  }
  const change = verdict.mappingStep?.current ? html` <a href="/uploads/${verdict.id}?columns=choose" data-change-mapping>Change which column feeds each field</a>` : '';
  const read = verdict.mapping ? [html`<div class="notice notice-info" data-read-as><p><strong>${verdict.mapping.description}</strong>${change}</p></div>`] : [];
  const notices = [...read, ...(verdict.notices ?? []).map((n) => html`<div class="notice notice-info"><p>${n}</p></div>`)];
  const body = html`${intro}
${notices}
${renderCounts(verdict)}
${renderFileIssues(verdict)}
${renderSubmit(ctx, verdict, view.submit)}
${renderDownloads(verdict)}
${renderRows(verdict, view, mayDo(ctx, 'submit'))}`;
  return layout({ title, section: 'upload', ctx, body });
}

function renderCounts(verdict: Verdict): SafeHtml {
  const { counts } = verdict;
  return html`<section aria-labelledby="summary-heading">
<h2 id="summary-heading" class="visually-hidden">Summary</h2>
<ul class="counts">
  <li class="count count-ok"><span aria-hidden="true">✓</span> <strong data-count="valid">${counts.valid}</strong> valid ${counts.valid === 1 ? 'order' : 'orders'}</li>
  <li class="count count-bad"><span aria-hidden="true">✗</span> <strong data-count="invalid">${counts.invalid}</strong> invalid ${counts.invalid === 1 ? 'order' : 'orders'}</li>
  <li class="count count-warn"><span aria-hidden="true">⚠</span> <strong>${counts.rowsWithWarnings}</strong> ${counts.rowsWithWarnings === 1 ? 'row' : 'rows'} with warnings</li>
  <li class="count"><strong>${counts.rows}</strong> ${counts.rows === 1 ? 'row' : 'rows'}, <strong>${counts.orders}</strong> ${counts.orders === 1 ? 'order' : 'orders'}</li>
</ul>
</section>`;
}

function renderFileIssues(verdict: Verdict): SafeHtml {
  if (verdict.fileIssues.length === 0) return html``;
  const items = verdict.fileIssues.map((i) => html`<li>${statusBadge(i.severity === 'error' ? 'invalid' : 'warning')} ${i.message}</li>`);
  return html`<section class="panel" aria-labelledby="file-issues-heading"><h2 id="file-issues-heading">About the whole sheet</h2><ul class="issue-list">${items}</ul></section>`;
}

function renderSubmit(ctx: PageContext, verdict: Verdict, submit: SubmitState): SafeHtml {
  const valid = verdict.orders.filter((o) => o.status === 'valid' && o.customerOrderId);
  const already = valid.filter((o) => submit.alreadySubmitted.has(o.customerOrderId!));
  const fresh = valid.length - already.length;
  const parts: SafeHtml[] = [];
  if (already.length > 0) {
    // De-duplicated as shown (to the second): orders of one run are accepted milliseconds apart.
    const when = [...new Set(already.map((o) => formatTime(submit.alreadySubmitted.get(o.customerOrderId!))).filter(Boolean))].slice(0, 3);
    parts.push(html`<div class="notice notice-info" data-already-submitted><p><strong><span aria-hidden="true">↺</span> Already submitted:</strong>
${plural(already.length, 'valid order')} of this sheet ${already.length === 1 ? 'was' : 'were'} accepted before${when.length ? html` (${when.join(', ')})` : ''}: ${already
      .slice(0, 10)
      .map((o) => o.customerOrderId)
      .join(', ')}${already.length > 10 ? ', …' : ''}. The ledger makes sure ${already.length === 1 ? 'it is' : 'they are'} never sent twice.</p></div>`);
  }
  if (submit.activeJobId) {
    parts.push(html`<p class="notice notice-info">A submission of this sheet is under way. <a href="/jobs/${submit.activeJobId}">Follow its progress</a>.</p>`);
  } else if (valid.length === 0) {
    parts.push(html`<p>No order is ready to submit yet. Correct the rows marked below (the Fix sheet holds just those rows), then upload the corrected sheet.</p>`);
  } else if (fresh === 0) {
    parts.push(html`<p><strong>Nothing new to submit:</strong> every valid order of this sheet was already submitted.</p>`);
  } else if (submit.apiProblem) {
    parts.push(html`<div class="notice notice-warn"><p>${submit.apiProblem}</p></div>`);
  } else if (!mayDo(ctx, 'submit')) {
    parts.push(html`<p data-no-submit>${plural(fresh, 'order')} ${fresh === 1 ? 'is' : 'are'} ready to submit. Your account (${ctx.visitor?.role ?? 'none'}) checks sheets only: an operator submits them.</p>`);
  } else {
    const label = already.length > 0 ? `Submit ${plural(fresh, 'new order')}` : `Submit ${plural(fresh, 'valid order')}`;
    parts.push(html`<form method="post" action="/uploads/${verdict.id}/submit" class="submit-form">
  ${csrfField(ctx)}
  <button type="submit" class="button button-primary">${label}</button>
  <p class="help">${verdict.counts.invalid > 0 ? html`The ${plural(verdict.counts.invalid, 'invalid order')} ${verdict.counts.invalid === 1 ? 'is' : 'are'} not sent. ` : ''}The API checks products and stock as they go; you will see each order's outcome.</p>
</form>`);
  }
  return html`<section class="panel" aria-labelledby="submit-heading"><h2 id="submit-heading">Submit</h2>${parts}</section>`;
}

function renderDownloads(verdict: Verdict): SafeHtml {
  return html`<section class="panel" aria-labelledby="downloads-heading">
<h2 id="downloads-heading">Downloads</h2>
<ul class="link-list">
  ${verdict.resultFile ? html`<li><a href="/uploads/${verdict.id}/result" download data-download="result">Result workbook (${verdict.resultFile})</a>: every row with its status and issues, bad cells highlighted with a note; Summary and Fix sheets.</li>` : ''}
  ${verdict.fixFile ? html`<li><a href="/uploads/${verdict.id}/fix" download data-download="fix">Fix sheet as CSV (${plural(verdict.fixRows, 'row')} to correct)</a>: only those rows, in template form, ready to correct and upload again.</li>` : html`<li>No Fix sheet: no row needs correcting.</li>`}
  <li><a href="/template.xlsx" download>Blank template (Excel)</a></li>
</ul>
</section>`;
}

/**
 * A sheet that fits one page is rendered whole, the rows the filter leaves out hidden, so the script
 * can filter live in both directions; a longer one is filtered and paged by the server.
 */
function renderRows(verdict: Verdict, view: { show: RowFilter; q: string; page: number; submit: SubmitState }, canCorrect: boolean): SafeHtml {
  const isMatch = (row: VerdictRow) => matchesFilter(row, view.show, view.q);
  const isPaged = verdict.rows.length > ROWS_PER_PAGE;
  const matching: VerdictRow[] = verdict.rows.filter(isMatch);
  const pages = isPaged ? Math.max(1, Math.ceil(matching.length / ROWS_PER_PAGE)) : 1;
  const page = Math.min(Math.max(1, view.page), pages);
  const rendered = isPaged ? matching.slice((page - 1) * ROWS_PER_PAGE, page * ROWS_PER_PAGE) : verdict.rows;
  const visible = isPaged ? rendered.length : matching.length;
  const radios = ROW_FILTERS.map(
    (f) => html`<label class="radio"><input type="radio" name="show" value="${f}"${f === view.show ? html` checked` : ''}> ${FILTER_LABELS[f]}</label>`,
  );
  const pageLink = (p: number) => `/uploads/${verdict.id}?show=${view.show}&q=${encodeURIComponent(view.q)}&page=${p}`;
  const pager =
    pages > 1
      ? html`<nav class="pager" aria-label="Pages of rows">${page > 1 ? html`<a href="${pageLink(page - 1)}">Previous page</a>` : ''} <span>Page ${page} of ${pages}</span> ${page < pages ? html`<a href="${pageLink(page + 1)}">Next page</a>` : ''}</nav>`
      : '';
  const leftOff =
    verdict.rowsLeftOff > 0
      ? html`<p class="notice notice-info">This page holds the rows with a problem (at most ${PAGE_ROW_LIMITS.withProblems.toLocaleString('en-US')}) and the first ${PAGE_ROW_LIMITS.clean.toLocaleString('en-US')} rows without one: the other ${plural(verdict.rowsLeftOff, 'row')} of this sheet ${verdict.rowsLeftOff === 1 ? 'is' : 'are'} in the result workbook.</p>`
      : '';
  return html`<section aria-labelledby="rows-heading">
<h2 id="rows-heading">Rows</h2>
<form method="get" action="/uploads/${verdict.id}" class="filters" data-filter-form data-paged="${isPaged ? 'true' : 'false'}">
  <fieldset class="radio-group"><legend>Show</legend>${radios}</fieldset>
  <div class="search"><label for="q" class="field-label">Find</label>
  <input id="q" name="q" type="search" value="${view.q}" placeholder="order id, value or message" autocomplete="off"></div>
  <button type="submit" class="button" data-filter-apply>Apply</button>
</form>
${leftOff}
<p class="filter-count" data-filter-count aria-live="polite">Showing ${plural(visible, 'row')} of ${isPaged ? matching.length : verdict.rows.length}${pages > 1 ? ` (page ${page} of ${pages})` : ''}.</p>
${renderRowsTable(verdict, rendered, view.submit.alreadySubmitted, isPaged ? () => false : (row) => !isMatch(row), canCorrect)}
<p class="empty" data-filter-empty${visible === 0 ? '' : html` hidden`}>No rows match this filter.</p>
${pager}
</section>`;
}
