/**
 * The mapping step: a sheet whose columns are not the template's, and that no profile fits. Each
 * source column with a few of its values and a choice of field, the best guess preselected, and for a
 * column of carriers or sales channels each of its values with the one it stands for; columns joined
 * into one field; the required fields not yet covered; constants for any order-level field; a name to
 * save the mapping under for the team. A sheet read with a profile shows it here on request, to change.
 */
import { COLUMNS, type Field } from '../../sheet/columns.js';
import { html, type SafeHtml } from '../html.js';
import {
  choicesOf,
  CONSTANT_FIELDS,
  emptyForm,
  formOfProfile,
  JOIN_WIDTH,
  JOINABLE_FIELDS,
  MAPPED_FIELDS,
  MAX_MAPPED_VALUES,
  SEPARATORS,
  type FormError,
  type MappingForm,
  type SeparatorName,
} from '../mapping-form.js';
import type { MappingStep, Verdict } from '../verdict.js';
import { csrfField, layout, mayDo, type PageContext } from './layout.js';

export interface MappingStepView {
  /** The configured sourceOfSale values, offered for the constant and the value maps. */
  sourcesOfSale?: readonly string[];
  /** Why the last attempt was refused, each beside the control to change ('' for the whole form). */
  errors?: readonly FormError[];
  /** The form as last posted, to show it again after an error. */
  form?: MappingForm;
}

const REQUIRED: readonly Field[] = COLUMNS.filter((c) => c.requiredColumn).map((c) => c.field);
const DEFAULT_SOURCES = ['OtherMarketplace'];

export function renderMappingStep(ctx: PageContext, verdict: Verdict, view: MappingStepView = {}): SafeHtml {
  const step = verdict.mappingStep!;
  const sourcesOfSale = view.sourcesOfSale ?? DEFAULT_SOURCES;
  const sheet = { headers: verdict.headers, values: step.values ?? [] };
  const form = view.form ?? (step.current ? formOfProfile(step.current, sheet) : formOfGuesses(step));
  const isFresh = view.form === undefined && step.current === undefined;
  const errors = view.errors ?? [];
  const control = controlErrors(errors);
  const confidenceOf = new Map(step.guesses.map((g) => [g.column, g.confidence]));
  const columnLabel = (i: number) => verdict.headers[i]?.trim() || `(column ${i + 1})`;
  const hesitation = (i: number): SafeHtml | '' => {
    const guess = step.guesses.find((g) => g.column === i && g.confidence === 'ambiguous');
    if (guess === undefined || !isFresh) return '';
    const others = step.guesses.filter((g) => g.field === guess.field && g.confidence === 'ambiguous' && g.column !== i).map((g) => `"${verdict.headers[g.column]?.trim() ?? ''}"`);
    return html` <span class="guess-ambiguous">could be ${guess.field}, as could ${others.join(' or ')}: choose one</span>`;
  };
  const rows = verdict.headers.map((header, i) => {
    const field = form.columns.get(i);
    const confidence = confidenceOf.get(i);
    const options = COLUMNS.map((c) => html`<option value="${c.field}"${c.field === field ? html` selected` : ''}>${c.field}${c.requiredColumn ? ' (required)' : ''}</option>`);
    const samples = (step.samples[i] ?? []).map((s) => html`<li>${s}</li>`);
    return html`<tr>
<th scope="row"><label for="col-${i}">${header || `(column ${i + 1})`}</label></th>
<td><ul class="samples">${samples.length ? samples : html`<li class="blank">(blank)</li>`}</ul></td>
<td><select id="col-${i}" name="col-${i}" data-field-choice${control.attrs(`col-${i}`)}><option value="">— not used —</option>${options}</select>${control.note(`col-${i}`)}${field !== undefined && confidence === 'weak' && isFresh ? html` <span class="guess-weak">a guess: check it</span>` : ''}${hesitation(i)}${field !== undefined && MAPPED_FIELDS.includes(field) ? valueMap(i, field, header, step.values?.[i] ?? [], form, choicesOf(field, sourcesOfSale), control) : ''}</td>
</tr>`;
  });
  const covered = new Set<Field>([...form.columns.values(), ...form.joins.flatMap((j) => (j.field === '' ? [] : [j.field])), ...form.constants.flatMap((c) => (c.field === '' ? [] : [c.field]))]);
  const missing = REQUIRED.filter((f) => !covered.has(f) && f !== 'sourceOfSale' && f !== 'customerLineItemId');
  const notices = (verdict.notices ?? []).map((n) => html`<div class="notice notice-info"><p>${n}</p></div>`);
  const columnOptions = (chosen: number | undefined) => verdict.headers.map((_, i) => html`<option value="${i}"${i === chosen ? html` selected` : ''}>${columnLabel(i)}</option>`);
  const fieldOptions = (fields: readonly Field[], chosen: Field | '') => fields.map((f) => html`<option value="${f}"${f === chosen ? html` selected` : ''}>${f}</option>`);
  const joins = form.joins.map((join, j) => {
    const parts = Array.from({ length: JOIN_WIDTH }, (_, k) => html`<label for="join-${j}-${k}" class="visually-hidden">Joined columns, row ${j + 1}: column ${k + 1}</label><select id="join-${j}-${k}" name="join-${j}-${k}"${control.attrs(`join-${j}-${k}`)}><option value="">—</option>${columnOptions(join.columns[k])}</select>${control.note(`join-${j}-${k}`)}${k < JOIN_WIDTH - 1 ? ' + ' : ''}`);
    const separators = (Object.keys(SEPARATORS) as SeparatorName[]).map((name) => html`<option value="${name}"${name === join.separator ? html` selected` : ''}>${SEPARATOR_LABELS[name]}</option>`);
    return html`<p class="join-row"><label for="join-${j}-field" class="field-label">Joined columns, row ${j + 1}: the field</label>
<select id="join-${j}-field" name="join-${j}-field" data-field-choice${control.attrs(`join-${j}-field`)}><option value="">— none —</option>${fieldOptions(JOINABLE_FIELDS, join.field)}</select>${control.note(`join-${j}-field`)} is ${parts}
<label for="join-${j}-sep">joined with</label> <select id="join-${j}-sep" name="join-${j}-sep">${separators}</select></p>`;
  });
  const constants = form.constants.map((constant, j) => html`<p class="constant-row"><label for="const-${j}-field" class="field-label">Constant, row ${j + 1}: the field</label>
<select id="const-${j}-field" name="const-${j}-field" data-field-choice${control.attrs(`const-${j}-field`)}><option value="">— none —</option>${fieldOptions(CONSTANT_FIELDS, constant.field)}</select>${control.note(`const-${j}-field`)}
<label for="const-${j}-value">is, on every order,</label> <input id="const-${j}-value" name="const-${j}-value" value="${constant.value}" autocomplete="off"${control.attrs(`const-${j}-value`)}>${control.note(`const-${j}-value`)}</p>`);
  const intro = step.current
    ? html`<p>The sheet was read as ${step.current.label === 'sheet mapped in the web app' ? 'mapped in this page' : `a ${step.current.label}`}: its choices are shown. Change which column feeds each field, and read the sheet again.`
    : html`<p>The columns of this sheet are not the template's, and no saved mapping fits them. Tell which column feeds each order field; the best guesses are chosen already.`;
  const body = html`<h1>${verdict.fileName}: which column is which?</h1>
${intro} The recipient is whoever the order is shipped to (columns such as <em>Shipping Name</em>), never the buyer (<em>Billing</em>) or the shipper.</p>
${notices}
${errors.length > 0 ? html`<div class="notice notice-bad" role="alert"><p>${errors.length === 1 ? 'One thing to change' : `${errors.length} things to change`} before the sheet can be read:</p><ul>${errors.map((e) => html`<li>${e.control ? html`<a href="#${e.control}">${e.message}</a>` : e.message}</li>`)}</ul></div>` : ''}
${mayDo(ctx, 'submit') ? '' : html`<div class="notice notice-info" data-no-mapping><p>Choosing the columns changes what is sent, so it takes an operator or an admin: your account (${ctx.visitor?.role ?? 'viewer'}) can look, and check the sheet as it is.</p></div>`}
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
<fieldset class="panel"><legend>Columns joined into one field</legend>
<p class="help">For a field split over columns, such as a first and a last name for fullName. A field fed by a join takes no column above.</p>
${joins}
</fieldset>
<fieldset class="panel"><legend>Values that are not in the sheet</legend>
<p><label for="const-sourceOfSale" class="field-label">sourceOfSale, when no column feeds it</label>
<select id="const-sourceOfSale" name="const-sourceOfSale"${control.attrs('const-sourceOfSale')}>${sourcesOfSale.map((v) => html`<option value="${v}"${v === form.sourceOfSale ? html` selected` : ''}>${v}</option>`)}</select>${control.note('const-sourceOfSale')}</p>
<p class="help">Any other order-level field the sheet lacks (a carrier, a country for a one-country shop) can be the same on every order:</p>
${constants}
<p><label class="checkbox"><input type="checkbox" name="lineNumbers" value="1"${form.lineNumbers ? html` checked` : ''}> customerLineItemId, when no column feeds it: number each order's lines 1, 2, 3</label></p>
<p><label for="dateOrder" class="field-label">Dates like 05/11/2026 are</label>
<select id="dateOrder" name="dateOrder"><option value="mdy">month first (11/24/2026)</option><option value="dmy"${form.dateOrder === 'dmy' ? html` selected` : ''}>day first (24.11.2026, 24/11/2026)</option></select></p>
<p><label for="decimalMark" class="field-label">Amounts are written with</label>
<select id="decimalMark" name="decimalMark">${(['auto', 'dot', 'comma'] as const).map((m) => html`<option value="${m}"${m === form.decimalMark ? html` selected` : ''}>${DECIMAL_LABELS[m]}</option>`)}</select></p>
</fieldset>
<fieldset class="panel"><legend>Save for the team</legend>
<p><label for="mapping-name" class="field-label">Name (letters, digits, - and _); leave it empty to use this mapping for this sheet only</label>
<input id="mapping-name" name="name" value="${form.name}" pattern="[A-Za-z0-9][A-Za-z0-9_\\-]{0,63}" autocomplete="off"${control.attrs('mapping-name')}>${control.note('mapping-name')}</p>
<p class="help">A saved mapping is applied, and said, on the next upload with these columns, for everyone using this app.</p>
</fieldset>
${mayDo(ctx, 'submit') ? html`<button type="submit" class="button button-primary">Read the sheet with these columns</button>` : ''}
</form>
${step.current ? html`<p><a href="/uploads/${verdict.id}">Back to the check, the mapping unchanged</a></p>` : html`<p><a href="/uploads/${verdict.id}?columns=as-is">Check the sheet with its columns as they are</a> (every column the template lacks is then an error).</p>`}`;
  return layout({ title: `Columns of ${verdict.fileName}`, section: 'upload', ctx, body });
}

const SEPARATOR_LABELS: Record<SeparatorName, string> = { space: 'a space', comma: 'a comma', none: 'nothing' };
const DECIMAL_LABELS = { auto: 'the mark the file shows (12.50 or 12,50)', dot: 'a point before the cents (1,234.50)', comma: 'a comma before the cents (1.234,50)' } as const;

/** Each value seen in a column that feeds a field of fixed values, with a choice of the value it stands for. */
function valueMap(i: number, field: Field, header: string, values: readonly string[], form: MappingForm, choices: readonly string[], control: ControlErrors): SafeHtml {
  if (values.length === 0) return html``;
  const chosen = form.maps.get(i);
  const rows = values.map((value, k) => {
    const to = chosen?.get(value);
    const keep = choices.includes(value) ? `${value} (as it is)` : '— choose —';
    return html`<li><label for="map-${i}-${k}">${value}</label> → <select id="map-${i}-${k}" name="map-${i}-${k}"${control.attrs(`map-${i}-${k}`)}><option value="">${keep}</option>${choices.map((c) => html`<option value="${c}"${c === to ? html` selected` : ''}>${c}</option>`)}</select>${control.note(`map-${i}-${k}`)}</li>`;
  });
  return html`<fieldset class="value-map" data-value-map="${i}"><legend>${field} for each value of ${header.trim()}${values.length >= MAX_MAPPED_VALUES ? ` (the first ${MAX_MAPPED_VALUES} seen)` : ''}</legend><ul>${rows}</ul></fieldset>`;
}

interface ControlErrors {
  attrs(id: string): SafeHtml | '';
  note(id: string): SafeHtml | '';
}

/** A refused control is marked invalid and described by its message, for screen readers as for eyes. */
function controlErrors(errors: readonly FormError[]): ControlErrors {
  const byControl = new Map<string, string[]>();
  for (const e of errors) if (e.control !== '') byControl.set(e.control, [...(byControl.get(e.control) ?? []), e.message]);
  return {
    attrs: (id) => (byControl.has(id) ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''),
    note: (id) => (byControl.has(id) ? html` <span id="${id}-error" class="field-error">${byControl.get(id)!.join(' ')}</span>` : ''),
  };
}

/** The form as the best guesses fill it in: an ambiguous guess (two columns fit a field as well) is shown, never chosen. */
function formOfGuesses(step: MappingStep): MappingForm {
  const form = emptyForm();
  for (const g of step.guesses) if (g.confidence !== 'ambiguous') form.columns.set(g.column, g.field);
  (step.joins ?? []).slice(0, form.joins.length).forEach((join, j) => {
    form.joins[j] = { field: join.field, columns: join.columns.slice(0, JOIN_WIDTH), separator: 'space' };
  });
  return form;
}
