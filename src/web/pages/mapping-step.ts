/**
 * The mapping step: a sheet whose columns are not the template's, and that no profile fits. Each
 * source column with a few of its values and a choice of field, the best guess preselected; the
 * required fields not yet covered; the constants; a name to save the mapping under for the team.
 */
import type { Profile, Rule } from '../../mapping/profile.js';
import { COLUMNS, normalizeHeader, type Field } from '../../sheet/columns.js';
import { html, type SafeHtml } from '../html.js';
import type { Verdict } from '../verdict.js';
import { csrfField, layout, type PageContext } from './layout.js';

export interface MappingStepView {
  /** The configured sourceOfSale values, offered for the constant. */
  sourcesOfSale?: readonly string[];
  /** Why the last attempt was refused (a field chosen twice, a required field missing, a bad name). */
  error?: string;
  /** The choices as last posted, to show them again after an error. */
  chosen?: Map<number, Field>;
}

const REQUIRED: readonly Field[] = COLUMNS.filter((c) => c.requiredColumn).map((c) => c.field);

export function renderMappingStep(ctx: PageContext, verdict: Verdict, view: MappingStepView = {}): SafeHtml {
  const step = verdict.mappingStep!;
  // An ambiguous guess (two columns fit a field as well) is shown, never preselected.
  const chosen = view.chosen ?? (step.current ? columnsOf(step.current, verdict.headers) : new Map(step.guesses.filter((g) => g.confidence !== 'ambiguous').map((g) => [g.column, g.field])));
  const confidenceOf = new Map(step.guesses.map((g) => [g.column, g.confidence]));
  const hesitation = (i: number): SafeHtml | '' => {
    const guess = step.guesses.find((g) => g.column === i && g.confidence === 'ambiguous');
    if (guess === undefined || view.chosen !== undefined) return '';
    const others = step.guesses.filter((g) => g.field === guess.field && g.confidence === 'ambiguous' && g.column !== i).map((g) => `"${verdict.headers[g.column]?.trim() ?? ''}"`);
    return html` <span class="guess-ambiguous">could be ${guess.field}, as could ${others.join(' or ')}: choose one</span>`;
  };
  const rows = verdict.headers.map((header, i) => {
    const field = chosen.get(i);
    const confidence = confidenceOf.get(i);
    const options = COLUMNS.map((c) => html`<option value="${c.field}"${c.field === field ? html` selected` : ''}>${c.field}${c.requiredColumn ? ' (required)' : ''}</option>`);
    const samples = (step.samples[i] ?? []).map((s) => html`<li>${s}</li>`);
    return html`<tr>
<th scope="row"><label for="col-${i}">${header || `(column ${i + 1})`}</label></th>
<td><ul class="samples">${samples.length ? samples : html`<li class="blank">(blank)</li>`}</ul></td>
<td><select id="col-${i}" name="col-${i}" data-field-choice><option value="">— not used —</option>${options}</select>${field !== undefined && confidence === 'weak' && view.chosen === undefined ? html` <span class="guess-weak">a guess: check it</span>` : ''}${hesitation(i)}</td>
</tr>`;
  });
  const covered = new Set(chosen.values());
  const missing = REQUIRED.filter((f) => !covered.has(f) && f !== 'sourceOfSale' && f !== 'customerLineItemId');
  const notices = (verdict.notices ?? []).map((n) => html`<div class="notice notice-info"><p>${n}</p></div>`);
  const body = html`<h1>${verdict.fileName}: which column is which?</h1>
${step.current ? html`<p>The sheet was read as ${step.current.label === 'sheet mapped in the web app' ? 'mapped in this page' : `a ${step.current.label}`}: its choices are shown. Change which column feeds each field, and read the sheet again.` : html`<p>The columns of this sheet are not the template's, and no saved mapping fits them. Tell which column feeds each order field; the best guesses are chosen already.`} The recipient is whoever the order is shipped to (columns such as <em>Shipping Name</em>), never the buyer (<em>Billing</em>) or the shipper.</p>
${notices}
${view.error ? html`<div class="notice notice-bad" role="alert"><p>${view.error}</p></div>` : ''}
<form method="post" action="/uploads/${verdict.id}/mapping" class="mapping-form" data-mapping-form data-required="${REQUIRED.join(' ')}">
${csrfField(ctx)}
<div class="notice notice-warn" data-missing-box${missing.length === 0 ? html` hidden` : ''}><p>Not covered yet (every order needs them): <strong data-missing>${missing.join(', ')}</strong></p></div>
<div class="table-wrap" role="region" aria-labelledby="mapping-caption" tabindex="0">
<table class="mapping-table">
<caption id="mapping-caption">Each column of ${verdict.fileName}, a few of its values, and the field it feeds</caption>
<thead><tr><th scope="col">Column</th><th scope="col">Values</th><th scope="col">Feeds</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>
<fieldset class="panel"><legend>Values that are not in the sheet</legend>
<p><label for="const-sourceOfSale" class="field-label">sourceOfSale, when no column feeds it</label>
<select id="const-sourceOfSale" name="const-sourceOfSale">${(view.sourcesOfSale ?? ['OtherMarketplace']).map((v) => html`<option value="${v}">${v}</option>`)}</select></p>
<p><label class="checkbox"><input type="checkbox" name="lineNumbers" value="1" checked> customerLineItemId, when no column feeds it: number each order's lines 1, 2, 3</label></p>
<p><label for="dateOrder" class="field-label">Dates like 05/11/2026 are</label>
<select id="dateOrder" name="dateOrder"><option value="mdy">month first (11/24/2026)</option><option value="dmy">day first (24.11.2026, 24/11/2026)</option></select></p>
<p><label for="decimalMark" class="field-label">Amounts are written with</label>
<select id="decimalMark" name="decimalMark"><option value="auto">the mark the file shows (12.50 or 12,50)</option><option value="dot">a point before the cents (1,234.50)</option><option value="comma">a comma before the cents (1.234,50)</option></select></p>
</fieldset>
<fieldset class="panel"><legend>Save for the team</legend>
<p><label for="mapping-name" class="field-label">Name (letters, digits, - and _); leave it empty to use this mapping for this sheet only</label>
<input id="mapping-name" name="name" pattern="[A-Za-z0-9][A-Za-z0-9_\\-]{0,63}" autocomplete="off"></p>
<p class="help">A saved mapping is applied, and said, on the next upload with these columns, for everyone using this app.</p>
</fieldset>
<button type="submit" class="button button-primary">Read the sheet with these columns</button>
</form>
${step.current ? html`<p><a href="/uploads/${verdict.id}">Back to the check, the mapping unchanged</a></p>` : html`<p><a href="/uploads/${verdict.id}?columns=as-is">Check the sheet with its columns as they are</a> (every column the template lacks is then an error).</p>`}`;
  return layout({ title: `Columns of ${verdict.fileName}`, section: 'upload', ctx, body });
}

/** The columns a profile reads for each field (a column rule), as the form's choices. */
function columnsOf(profile: Profile, headers: readonly string[]): Map<number, Field> {
  const chosen = new Map<number, Field>();
  for (const [field, rule] of Object.entries(profile.fields) as [Field, Rule | undefined][]) {
    if (rule === undefined || !('column' in rule)) continue;
    const i = headers.findIndex((h) => normalizeHeader(h) === normalizeHeader(rule.column));
    if (i >= 0 && !chosen.has(i)) chosen.set(i, field);
  }
  return chosen;
}
