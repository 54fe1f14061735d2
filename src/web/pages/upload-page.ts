/** The front door: a drop zone around a labelled file input; a plain form post, so it works without script too. */
import { html, type SafeHtml } from '../html.js';
import { csrfField, layout, type PageContext } from './layout.js';

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

export function renderUploadPage(ctx: PageContext, options: { maxUploadBytes: number; error?: string; apiProblem?: string }): SafeHtml {
  const limit = formatBytes(options.maxUploadBytes);
  const body = html`
<h1>Check an order sheet</h1>
<p class="lead">Upload a CSV or Excel (.xlsx) sheet of orders. order-batch checks every row and shows what to fix.
Nothing is sent until you press <strong>Submit</strong> on the next page.</p>
${options.error ? html`<div class="notice notice-bad" role="alert"><p><strong>That upload did not work.</strong> ${options.error}</p></div>` : ''}
${options.apiProblem ? html`<div class="notice notice-warn"><p>${options.apiProblem}</p></div>` : ''}
<form class="upload-form" method="post" action="/upload" enctype="multipart/form-data" data-max-bytes="${options.maxUploadBytes}" data-max-label="${limit}">
  ${csrfField(ctx)}
  <div class="drop-zone" data-drop-zone>
    <p class="drop-hint" aria-hidden="true">Drag a sheet here, or choose one:</p>
    <label for="file" class="field-label">Order sheet (CSV or XLSX, up to ${limit})</label>
    <input id="file" name="file" type="file" required accept=".csv,.xlsx,.tsv,.txt" aria-describedby="file-help">
    <p id="file-help" class="help">One row per line item; rows with the same customerOrderId form one order. Headers as in the template.</p>
    <p class="chosen" data-chosen aria-live="polite"></p>
  </div>
  <details class="more-options">
    <summary>More options</summary>
    <label for="sheet" class="field-label">Worksheet name (xlsx only)</label>
    <input id="sheet" name="sheet" type="text" maxlength="100" autocomplete="off" aria-describedby="sheet-help">
    <p id="sheet-help" class="help">Leave empty to read the first visible worksheet.</p>
  </details>
  <p class="error-text" data-upload-error role="alert" hidden></p>
  <button type="submit" class="button button-primary">Check the sheet</button>
</form>

<section class="panel" aria-labelledby="start-heading">
  <h2 id="start-heading">Need a sheet to start from?</h2>
  <ul class="link-list">
    <li><a href="/template.xlsx" download>Download the blank template (Excel)</a>: dropdowns for the allowed values, and an Instructions sheet.</li>
    <li><a href="/template.csv" download>Download the template as CSV</a></li>
  </ul>
</section>`;
  return layout({ title: 'Check a sheet', section: 'upload', ctx, body });
}
