/**
 * The rows of a checked sheet as a table: row number as the row header, the status and the row's
 * problems first (readable without scrolling sideways), then the sheet's own cells, a bad cell
 * marked by colour, a symbol and its message in the cell itself.
 */
import type { Issue } from '../../issues/index.js';
import { formatRelatedRows, groupCellIssues } from '../../output-files/issue-text.js';
import { html, type SafeHtml } from '../html.js';
import { hasWarning, type Verdict, type VerdictRow } from '../verdict.js';
import { formatTime, statusBadge } from './layout.js';
import { latestEdits, type CellEdit } from '../../mapping/cell-edits.js';

export function renderRowsTable(
  verdict: Verdict,
  rows: readonly VerdictRow[],
  alreadySubmitted: ReadonlyMap<string, string | null>,
  isHidden: (row: VerdictRow) => boolean,
  /** Whether the visitor may correct cells (it changes what is sent: the submit role). */
  canCorrect = true,
): SafeHtml {
  const headers = verdict.headers.map((h, i) => html`<th scope="col">${h || `(column ${i + 1})`}</th>`);
  const edits = latestEdits(verdict.edits ?? []);
  const body = rows.map((row) => renderRow(row, verdict.headers, alreadySubmitted, isHidden(row), edits.get(row.n), canCorrect));
  return html`<div class="table-wrap" role="region" aria-labelledby="rows-caption" tabindex="0">
<table class="rows-table" data-rows-table>
<caption id="rows-caption">Rows of ${verdict.fileName}: the status of each row's order, its problems, then its cells; a cell with a problem is marked and explains it.</caption>
<thead><tr><th scope="col">Row</th><th scope="col">Status</th><th scope="col">Problems</th>${headers}</tr></thead>
<tbody>${body}</tbody>
</table>
</div>`;
}

function renderRow(row: VerdictRow, headers: readonly string[], alreadySubmitted: ReadonlyMap<string, string | null>, isHidden: boolean, edits: ReadonlyMap<number, CellEdit> | undefined, canCorrect: boolean): SafeHtml {
  const marks = new Map(groupCellIssues(row.issues).map((c) => [c.colIndex, c]));
  const cells: SafeHtml[] = [];
  for (let i = 0; i < headers.length; i++) {
    const value = row.cells[i] ?? '';
    const mark = marks.get(i);
    const edit = edits?.get(i);
    const edited = edit ? html`<span class="edit-mark" data-edited><span aria-hidden="true">✎</span> corrected by ${edit.by}, ${formatTime(edit.at)}</span>` : '';
    if (!mark) {
      cells.push(edit ? html`<td class="cell-edited" data-col="${i}">${value}${edited}</td>` : html`<td>${value}</td>`);
      continue;
    }
    const isError = mark.severity === 'error';
    // A bad cell can be corrected here: the order is checked again at once, and a submission sends the corrected value.
    const correct = !canCorrect ? '' : html`<button type="button" class="cell-edit" data-edit-row="${row.n}" data-edit-col="${i}" data-edit-value="${row.cells[i] ?? ''}" aria-label="Correct ${headers[i] || `column ${i + 1}`} of row ${row.n}">Correct</button>`;
    cells.push(html`<td class="cell-${isError ? 'error' : 'warning'}${edit ? ' cell-edited' : ''}" data-col="${i}"><span class="cell-value">${value === '' ? html`<span class="blank">(blank)</span>` : value}</span>
<span class="cell-msg"><span aria-hidden="true">${isError ? '✗' : '⚠'}</span> ${isError ? '' : 'Warning: '}${mark.note.replace(/^\(warning\) /gm, '')}</span>${edited}${correct}</td>`);
  }
  const problems = problemLines(row);
  const isSubmitted = row.status === 'valid' && row.orderId !== null && alreadySubmitted.has(row.orderId);
  return html`<tr data-status="${row.status}" data-warn="${hasWarning(row) ? '1' : '0'}" class="row-${row.status}"${isHidden ? html` hidden` : ''}>
<th scope="row">${row.n}</th>
<td class="status-cell">${statusBadge(row.status)}${isSubmitted ? html`<br>${statusBadge('already_submitted')}` : ''}</td>
<td class="problems">${problems.length ? html`<ul>${problems}</ul>` : ''}</td>
${cells}
</tr>`;
}

/** Errors first, then warnings; the column named unless the message already starts with it. */
function problemLines(row: VerdictRow): SafeHtml[] {
  const line = (issue: Issue) => {
    const text = issue.column && !issue.message.startsWith(issue.column) ? `${issue.column}: ${issue.message}` : issue.message;
    return issue.severity === 'error'
      ? html`<li class="problem-error"><span aria-hidden="true">✗</span> ${text}</li>`
      : html`<li class="problem-warning"><span aria-hidden="true">⚠</span> Warning: ${text}</li>`;
  };
  const errors = row.issues.filter((i) => i.severity === 'error');
  const lines = [...errors.map(line), ...row.issues.filter((i) => i.severity !== 'error').map(line)];
  if (errors.length === 0 && row.related?.length) lines.push(html`<li class="problem-related">${formatRelatedRows(row.related)}</li>`);
  return lines;
}
