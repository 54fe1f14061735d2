/**
 * The web mapping step's form, read and turned into a profile checked with the same zod schema as a
 * profile file: a column per field, columns joined into one field (first and last name), a value map
 * for a column that feeds a field of fixed values (shipping method -> carrierId), a constant for any
 * order-level field, the date order and decimal mark. Everything wrong with a posted form is named, each
 * message beside the control to change. Pure: the route reads the body and renders the page.
 */
import { CARRIER_IDS, COUNTRY_CODES } from '../contract/enums.js';
import { findBuiltinProfile } from '../mapping/builtin/index.js';
import { isFirstRule, parseProfile, type Profile, type Rule } from '../mapping/profile.js';
import { COLUMN_BY_FIELD, COLUMNS, FIELDS, normalizeHeader, type Field } from '../sheet/columns.js';

/** Rows of joined columns and of constants the form offers, and columns a join takes at most. */
export const JOIN_ROWS = 2;
export const JOIN_WIDTH = 3;
export const CONSTANT_ROWS = 3;
/** Distinct values of a column listed for its value map. */
export const MAX_MAPPED_VALUES = 20;

/** Fields of fixed values whose columns get a value map. */
export const MAPPED_FIELDS: readonly Field[] = ['carrierId', 'sourceOfSale'];
/** Text fields a join may feed; order-level fields a constant may set. */
export const JOINABLE_FIELDS: readonly Field[] = COLUMNS.filter((c) => c.kind === 'text' && c.field !== 'customerLineItemId').map((c) => c.field);
export const CONSTANT_FIELDS: readonly Field[] = COLUMNS.filter((c) => c.level === 'order' && c.field !== 'customerOrderId').map((c) => c.field);

export const SEPARATORS = { space: ' ', comma: ', ', none: '' } as const;
export type SeparatorName = keyof typeof SEPARATORS;

export interface MappingForm {
  /** Source column (0-based) -> the field it feeds. */
  columns: Map<number, Field>;
  joins: { field: Field | ''; columns: number[]; separator: SeparatorName }[];
  constants: { field: Field | ''; value: string }[];
  /** Source column -> (a value seen in it -> the field value it stands for). */
  maps: Map<number, Map<string, string>>;
  sourceOfSale: string;
  lineNumbers: boolean;
  dateOrder: 'mdy' | 'dmy';
  decimalMark: 'auto' | 'dot' | 'comma';
  name: string;
}

/** What is wrong, and the id of the control to change ('' for the form as a whole). */
export interface FormError {
  control: string;
  message: string;
}

export interface FormSheet {
  headers: readonly string[];
  /** The distinct values seen in each column (at most MAX_MAPPED_VALUES). */
  values: readonly (readonly string[])[];
  uploadId: string;
  sourcesOfSale: readonly string[];
  /** The profile the sheet was read with, when the form changes it: its finer rules are kept. */
  base?: Profile;
}

export type Built = { profile: Profile; isSaved: boolean } | { errors: FormError[] };

/** The values a field of fixed values takes. */
export function choicesOf(field: Field, sourcesOfSale: readonly string[]): readonly string[] {
  return field === 'carrierId' ? CARRIER_IDS : field === 'sourceOfSale' ? sourcesOfSale : [];
}

const isField = (value: string | undefined): value is Field => value !== undefined && (FIELDS as readonly string[]).includes(value);

export function readForm(body: Record<string, string>, sheet: Pick<FormSheet, 'headers' | 'values'>): MappingForm {
  const columns = new Map<number, Field>();
  const maps = new Map<number, Map<string, string>>();
  sheet.headers.forEach((_, i) => {
    const field = body[`col-${i}`];
    if (isField(field)) columns.set(i, field);
    (sheet.values[i] ?? []).forEach((value, k) => {
      const to = (body[`map-${i}-${k}`] ?? '').trim();
      if (to !== '') (maps.get(i) ?? maps.set(i, new Map()).get(i)!).set(value, to);
    });
  });
  const joins = Array.from({ length: JOIN_ROWS }, (_, j) => {
    const picked = Array.from({ length: JOIN_WIDTH }, (_, k) => Number.parseInt(body[`join-${j}-${k}`] ?? '', 10)).filter((i) => Number.isInteger(i) && i >= 0 && i < sheet.headers.length);
    const field = body[`join-${j}-field`];
    const sep = body[`join-${j}-sep`];
    const separator: SeparatorName = sep === 'comma' || sep === 'none' ? sep : 'space';
    return { field: isField(field) ? field : ('' as const), columns: [...new Set(picked)], separator };
  });
  const constants = Array.from({ length: CONSTANT_ROWS }, (_, j) => {
    const field = body[`const-${j}-field`];
    return { field: isField(field) ? field : ('' as const), value: (body[`const-${j}-value`] ?? '').trim() };
  });
  return {
    columns,
    joins,
    constants,
    maps,
    sourceOfSale: (body['const-sourceOfSale'] ?? '').trim(),
    lineNumbers: body.lineNumbers === '1',
    dateOrder: body.dateOrder === 'dmy' ? 'dmy' : 'mdy',
    decimalMark: body.decimalMark === 'dot' || body.decimalMark === 'comma' ? body.decimalMark : 'auto',
    name: (body.name ?? '').trim(),
  };
}

/** The profile the form describes, or everything that keeps it from being one. */
export function profileFromForm(form: MappingForm, sheet: FormSheet): Built {
  const errors: FormError[] = [];
  const header = (i: number) => `"${sheet.headers[i]?.trim() || `column ${i + 1}`}"`;
  const fedBy = new Map<Field, string>();
  const claim = (field: Field, source: string, control: string) => {
    const earlier = fedBy.get(field);
    if (earlier === undefined) fedBy.set(field, source);
    else errors.push({ control, message: `Each field takes one source: ${field} is chosen for ${earlier} and for ${source}. Keep one of them.` });
  };
  const fields: Partial<Record<Field, Rule>> = {};

  for (const [i, field] of [...form.columns].sort((a, b) => a[0] - b[0])) {
    claim(field, header(i), `col-${i}`);
    if (fields[field] !== undefined) continue;
    const values = valueMapOf(i, field, form, sheet, errors);
    const kept = sheet.base?.fields[field];
    // A rule of the profile being changed that reads this column keeps what the form does not show (perUnit, sum, split...).
    const base = kept !== undefined && 'column' in kept && normalizeHeader(kept.column) === normalizeHeader(sheet.headers[i] ?? '') ? kept : undefined;
    fields[field] = { ...base, column: sheet.headers[i]!, ...(values && { values }) };
  }
  form.joins.forEach((join, j) => {
    const row = `Joined columns, row ${j + 1}`;
    if (join.field === '') {
      if (join.columns.length > 0) errors.push({ control: `join-${j}-field`, message: `${row}: choose the field ${join.columns.map(header).join(' and ')} feed.` });
      return;
    }
    if (!JOINABLE_FIELDS.includes(join.field)) return errors.push({ control: `join-${j}-field`, message: `${row}: ${join.field} is not text, and only text can be joined.` });
    if (join.columns.length < 2) return errors.push({ control: `join-${j}-${join.columns.length}`, message: `${row}: ${join.field} joins two columns or more: choose the ${join.columns.length === 0 ? 'first' : 'second'}.` });
    claim(join.field, `the columns ${join.columns.map(header).join(' + ')} joined`, `join-${j}-field`);
    fields[join.field] ??= { join: join.columns.map((i) => sheet.headers[i]!), ...(join.separator !== 'space' && { separator: SEPARATORS[join.separator] }) };
  });
  form.constants.forEach((constant, j) => {
    const row = `Constant, row ${j + 1}`;
    if (constant.field === '') {
      if (constant.value !== '') errors.push({ control: `const-${j}-field`, message: `${row}: choose the field "${constant.value}" is the value of.` });
      return;
    }
    if (!CONSTANT_FIELDS.includes(constant.field)) return errors.push({ control: `const-${j}-field`, message: `${row}: ${constant.field} is not an order-level field: a constant is the same on every order.` });
    if (constant.value === '') return errors.push({ control: `const-${j}-value`, message: `${row}: give the value of ${constant.field} for every order.` });
    const value = constant.field === 'countryCode' ? constant.value.toUpperCase() : constant.value;
    const problem = constantProblem(constant.field, value, sheet.sourcesOfSale);
    if (problem !== undefined) return errors.push({ control: `const-${j}-value`, message: `${row}: ${problem}` });
    claim(constant.field, `the constant "${value}"`, `const-${j}-field`);
    fields[constant.field] ??= { constant: value };
  });
  if (fields.sourceOfSale === undefined && form.sourceOfSale !== '') {
    if (!sheet.sourcesOfSale.includes(form.sourceOfSale)) errors.push({ control: 'const-sourceOfSale', message: `sourceOfSale is one of ${sheet.sourcesOfSale.join(', ')}: "${form.sourceOfSale}" is not.` });
    else fields.sourceOfSale = { constant: form.sourceOfSale };
  }
  if (fields.customerLineItemId === undefined && form.lineNumbers) fields.customerLineItemId = { generate: 'lineNumber' };
  // Rules of the profile being changed that the form cannot show (the first non-blank of columns) stay.
  for (const [field, rule] of Object.entries(sheet.base?.fields ?? {}) as [Field, Rule][]) {
    if (fields[field] === undefined && isFirstRule(rule)) fields[field] = rule;
  }
  const missing = COLUMNS.filter((c) => c.requiredColumn && fields[c.field] === undefined).map((c) => c.field);
  if (missing.length > 0) errors.push({ control: '', message: `Every order needs ${missing.join(', ')}: choose the column that feeds ${missing.length === 1 ? 'it' : 'each'}, or give a constant.` });
  if (findBuiltinProfile(form.name) !== undefined) errors.push({ control: 'mapping-name', message: `${form.name} is the name of a built-in profile: choose another name for this mapping.` });
  if (errors.length > 0) return { errors };

  const base = sheet.base;
  const json = {
    name: form.name === '' ? `upload-${sheet.uploadId.slice(0, 8).replace(/[^A-Za-z0-9]/g, 'x')}` : form.name,
    label: form.name === '' ? 'sheet mapped in the web app' : `${form.name} export`,
    ...(form.dateOrder === 'dmy' && { dateOrder: 'dmy' }),
    ...(base?.dateFormat !== undefined && { dateFormat: base.dateFormat }),
    ...(form.decimalMark !== 'auto' && { decimalMark: form.decimalMark }),
    ...(base?.totals !== undefined && { totals: base.totals }),
    ...(base?.ignore !== undefined && { ignore: base.ignore }),
    fields,
  };
  try {
    return { profile: parseProfile(json, form.name === '' ? 'the mapping form' : `mapping "${form.name}"`), isSaved: form.name !== '' };
  } catch (error) {
    return { errors: [{ control: form.name === '' ? '' : 'mapping-name', message: (error as Error).message }] };
  }
}

/** A column feeding a field of fixed values: each value seen that is not one needs the one it stands for. */
function valueMapOf(i: number, field: Field, form: MappingForm, sheet: FormSheet, errors: FormError[]): Record<string, string> | undefined {
  const choices = choicesOf(field, sheet.sourcesOfSale);
  if (choices.length === 0) return undefined;
  const chosen = form.maps.get(i);
  const values: Record<string, string> = {};
  (sheet.values[i] ?? []).forEach((value, k) => {
    const to = chosen?.get(value);
    if (to !== undefined && !choices.includes(to)) errors.push({ control: `map-${i}-${k}`, message: `${field} for "${value}": "${to}" is not one of ${choices.join(', ')}.` });
    else if (to !== undefined && to !== value) values[value] = to;
    else if (to === undefined && !choices.includes(value)) {
      errors.push({ control: `map-${i}-${k}`, message: `${field} from "${sheet.headers[i]!.trim()}": "${value}" is not one of ${choices.join(', ')}. Choose the ${field} it stands for.` });
    }
  });
  return Object.keys(values).length > 0 ? values : undefined;
}

function constantProblem(field: Field, value: string, sourcesOfSale: readonly string[]): string | undefined {
  const choices = choicesOf(field, sourcesOfSale);
  if (choices.length > 0 && !choices.includes(value)) return `${field} is one of ${choices.join(', ')}: "${value}" is not.`;
  if (field === 'countryCode' && !COUNTRY_CODES.includes(value)) return `countryCode is a two-letter ISO 3166 code (US, DE, FR): "${value}" is not one.`;
  const max = COLUMN_BY_FIELD.get(field)?.maxLength;
  if (max !== undefined && value.length > max) return `${field} takes at most ${max} characters.`;
  return undefined;
}

/** The form as a profile fills it in (the step changing the mapping a sheet was read with). */
export function formOfProfile(profile: Profile, sheet: Pick<FormSheet, 'headers' | 'values'>): MappingForm {
  const form = emptyForm();
  const indexOf = (name: string) => sheet.headers.findIndex((h) => normalizeHeader(h) === normalizeHeader(name));
  for (const [field, rule] of Object.entries(profile.fields) as [Field, Rule][]) {
    if ('column' in rule) {
      const i = indexOf(rule.column);
      if (i < 0 || form.columns.has(i)) continue;
      form.columns.set(i, field);
      const keys = new Map(Object.entries(rule.values ?? {}).map(([from, to]) => [from.trim().toLowerCase(), to]));
      for (const value of sheet.values[i] ?? []) {
        const to = keys.get(value.trim().toLowerCase());
        if (to !== undefined) (form.maps.get(i) ?? form.maps.set(i, new Map()).get(i)!).set(value, to);
      }
    } else if ('join' in rule) {
      const slot = form.joins.findIndex((j) => j.field === '');
      const separator = (Object.keys(SEPARATORS) as SeparatorName[]).find((s) => SEPARATORS[s] === (rule.separator ?? ' '));
      if (slot >= 0) form.joins[slot] = { field, columns: rule.join.map(indexOf).filter((i) => i >= 0).slice(0, JOIN_WIDTH), separator: separator ?? 'space' };
    } else if ('constant' in rule) {
      const slot = form.constants.findIndex((c) => c.field === '');
      if (field === 'sourceOfSale') form.sourceOfSale = rule.constant;
      else if (slot >= 0) form.constants[slot] = { field, value: rule.constant };
    }
  }
  form.lineNumbers = profile.fields.customerLineItemId !== undefined && 'generate' in profile.fields.customerLineItemId;
  form.dateOrder = profile.dateOrder ?? 'mdy';
  form.decimalMark = profile.decimalMark ?? 'auto';
  return form;
}

export function emptyForm(): MappingForm {
  return {
    columns: new Map(),
    joins: Array.from({ length: JOIN_ROWS }, () => ({ field: '' as const, columns: [], separator: 'space' as const })),
    constants: Array.from({ length: CONSTANT_ROWS }, () => ({ field: '' as const, value: '' })),
    maps: new Map(),
    sourceOfSale: '',
    lineNumbers: true,
    dateOrder: 'mdy',
    decimalMark: 'auto',
    name: '',
  };
}
