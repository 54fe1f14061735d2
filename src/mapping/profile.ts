/**
 * A mapping profile: which column of a marketplace export (or any sheet) feeds each order field, as a
 * JSON file anyone can read and edit. Checked with zod; a bad profile is refused with the file and the
 * JSON path of what is wrong, never half applied.
 */
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { NAMED_DATE_FORMATS } from '../orders/types.js';
import { COLUMNS, FIELDS, type Field } from '../sheet/columns.js';
import { IDENTIFIER_NAMES, MARKETPLACES, type IdentifierName } from './marketplace-identifiers.js';

const columnName = z.string().trim().min(1, 'a column name cannot be empty');

/** Options every rule that reads a column may have. */
const readOptions = {
  /** Source value -> field value, compared without regard to case or surrounding spaces (`Standard` -> `CarrierXGround`). */
  values: z.record(z.string(), z.string()).optional(),
  /** A value not in `values`: kept as it is (and checked like any value), or left blank. */
  otherwise: z.enum(['keep', 'blank']).optional(),
  /** The column may be missing from a file: the field is then left blank, without a file-level error. */
  optional: z.boolean().optional(),
};

const columnRule = z.strictObject({
  column: columnName,
  ...readOptions,
  /** The column holds the amount for the whole line: divided by the line's quantity (Amazon's item-price). */
  perUnit: z.boolean().optional(),
  /** An amount column minus this one (WooCommerce's item_subtotal - item_total is the line's discount). */
  minus: columnName.optional(),
  /** An order-level amount given per line: the order's value is the sum of its lines' (Amazon's item-tax). */
  sum: z.boolean().optional(),
  /** An order-level column whose lines may differ: the order's value is its first line's, the others unread. */
  first: z.boolean().optional(),
  /** Take one part of the cell, split at `split` (1-based `part`; the last part takes the rest). */
  split: z.string().min(1).optional(),
  part: z.number().int().min(1).max(10).optional(),
});

const joinRule = z.strictObject({
  /** The non-blank cells of these columns, joined with `separator` (default a space): first and last names. */
  join: z.array(columnName).min(2),
  separator: z.string().optional(),
  ...readOptions,
});

const firstRule = z.strictObject({
  /** The first non-blank cell of these columns. */
  first: z.array(columnName).min(2),
  ...readOptions,
});

const constantRule = z.strictObject({
  /** The same value on every order (sourceOfSale = OtherMarketplace). */
  constant: z.string(),
});

const generateRule = z.strictObject({
  /** `lineNumber`: the line's number within its order, 1, 2, 3... (for customerLineItemId when the export has none). */
  generate: z.literal('lineNumber'),
});

/** A marketplace identifier: read from one column as it is, kept in the ledger, never sent to the API. */
const identifierRule = z.strictObject({ column: columnName });
const identifiersShape = Object.fromEntries(IDENTIFIER_NAMES.map((n) => [n, identifierRule.optional()])) as Record<IdentifierName, z.ZodOptional<typeof identifierRule>>;

export const ruleSchema = z.union([columnRule, joinRule, firstRule, constantRule, generateRule]);
export type Rule = z.infer<typeof ruleSchema>;
export type ColumnRule = z.infer<typeof columnRule>;
export type FirstRule = z.infer<typeof firstRule>;

/** A `first` rule (the first non-blank of columns), not a column rule with `first: true`. */
export function isFirstRule(rule: Rule): rule is FirstRule {
  return !('column' in rule) && 'first' in rule;
}

const fieldsShape = Object.fromEntries(FIELDS.map((f) => [f, ruleSchema.optional()])) as Record<Field, z.ZodOptional<typeof ruleSchema>>;

export const profileSchema = z.strictObject({
  /** Short name for --mapping and the web app (letters, digits, `-` and `_`). */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'use letters, digits, - and _ (at most 64), starting with a letter or digit'),
  /** What the file is, for "read as a ..." (e.g. "Shopify orders export"). */
  label: z.string().trim().min(1).max(100),
  description: z.string().max(2000).optional(),
  /** How `05/11/2026` is read: month first (mdy, the default) or day first (dmy). */
  dateOrder: z.enum(['mdy', 'dmy']).optional(),
  /** A date form read besides the usual ones: `MMM-DD-YY` (eBay's `Nov-18-26`; the year is 20YY) or `MMM-DD-YYYY`. */
  dateFormat: z.enum(NAMED_DATE_FORMATS).optional(),
  /** The decimal mark: `auto` (the default) decides from the file's numbers (12,50 or 12.50). */
  decimalMark: z.enum(['auto', 'dot', 'comma']).optional(),
  /**
   * `computed`: subTotal, discountTotal and grandTotal come from the lines (unitPrice x quantity...), never
   * from the file, whose totals mean something else (Shopify's Total includes shipping). `file` (the
   * default): mapped totals are checked against the lines.
   */
  totals: z.enum(['file', 'computed']).optional(),
  fields: z.strictObject(fieldsShape),
  /** The marketplace the export comes from: its orders are confirmed back in its own upload format. */
  marketplace: z.enum(MARKETPLACES).optional(),
  /**
   * Columns the marketplace knows each line by (Amazon's order-item-id, eBay's Item Number...), read per
   * line and kept in the ledger for confirmations; never part of what is sent. A missing column leaves
   * the identifier out.
   */
  identifiers: z.strictObject(identifiersShape).optional(),
  /** Columns of the export known not to be needed: no warning names them. */
  ignore: z.array(z.string()).optional(),
  /** Free text for people reading the file (what was guessed, what is missing); not read otherwise. */
  notes: z.array(z.string()).optional(),
});

export type Profile = z.infer<typeof profileSchema>;

/** A profile file or text that cannot be used: the message names where it came from and the JSON path. */
export class ProfileError extends UsageError {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, 'name', { value: 'ProfileError', enumerable: false, configurable: true, writable: true });
  }
}

/** A profile from parsed JSON; `source` names the file (or "built-in profile shopify") in errors. */
export function parseProfile(json: unknown, source: string): Profile {
  const parsed = profileSchema.safeParse(json);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 5).map((issue) => `${formatPath(issue.path)}: ${describeIssue(issue)}`);
    const more = parsed.error.issues.length > 5 ? ` (and ${parsed.error.issues.length - 5} more)` : '';
    throw new ProfileError(`Mapping profile ${source} is not valid: ${lines.join('; ')}${more}.`);
  }
  checkRules(parsed.data, source);
  return parsed.data;
}

/** A profile from JSON text (a file's contents). */
export function parseProfileText(text: string, source: string): Profile {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ProfileError(`Mapping profile ${source} is not valid JSON: ${(error as Error).message}.`);
  }
  return parseProfile(json, source);
}

/** The profile as the JSON people edit: two-space indentation, fields in template order. */
export function formatProfile(profile: Profile): string {
  const fields: Partial<Record<Field, Rule>> = {};
  for (const field of FIELDS) if (profile.fields[field] !== undefined) fields[field] = profile.fields[field];
  return `${JSON.stringify({ ...profile, fields }, null, 2)}\n`;
}

/** What zod cannot check: rules that make no sense for their field. */
function checkRules(profile: Profile, source: string): void {
  const problems: string[] = [];
  for (const field of FIELDS) {
    const rule = profile.fields[field];
    if (rule === undefined || !('column' in rule)) continue;
    const at = `fields.${field}`;
    if ((rule.perUnit || rule.minus !== undefined || rule.sum) && !MONEY_FIELDS.has(field)) problems.push(`${at}: perUnit, minus and sum are for amounts, and ${field} is not one`);
    if (rule.sum && !ORDER_MONEY_FIELDS.has(field)) problems.push(`${at}.sum: only an order's amounts (salesTax, subTotal, discountTotal, grandTotal) can be added up over its lines`);
    if (rule.perUnit && ORDER_MONEY_FIELDS.has(field)) problems.push(`${at}.perUnit: only a line's amounts (unitPrice, discount) are per unit`);
    if (rule.sum && rule.first) problems.push(`${at}: sum and first cannot both be set (the order's value is either its lines' sum or its first line's)`);
    if (rule.first && !ORDER_FIELDS.has(field)) problems.push(`${at}.first: only an order's fields repeat on its lines, and ${field} is a line's`);
    if (rule.part !== undefined && rule.split === undefined) problems.push(`${at}.part: give split too (the text to split the cell at)`);
  }
  if (profile.totals === 'computed') {
    for (const field of ['subTotal', 'discountTotal', 'grandTotal'] as const) {
      if (profile.fields[field] !== undefined) problems.push(`fields.${field}: totals is "computed", so ${field} comes from the lines; remove it or set totals to "file"`);
    }
  }
  if (problems.length > 0) throw new ProfileError(`Mapping profile ${source} is not valid: ${problems.join('; ')}.`);
}

const ORDER_MONEY_FIELDS: ReadonlySet<Field> = new Set(['subTotal', 'salesTax', 'discountTotal', 'grandTotal']);
const ORDER_FIELDS: ReadonlySet<Field> = new Set(COLUMNS.filter((c) => c.level === 'order').map((c) => c.field));
const MONEY_FIELDS: ReadonlySet<Field> = new Set([...ORDER_MONEY_FIELDS, 'unitPrice', 'discount']);

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(the whole profile)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    const isField = issue.path.length === 1 && issue.path[0] === 'fields';
    return isField ? `${keys} ${issue.keys.length === 1 ? 'is' : 'are'} not an order field (the fields are the template's column names, e.g. customerOrderId)` : `unknown key ${keys}`;
  }
  if (issue.code === 'invalid_union') {
    return 'a rule is one of {"column": ...}, {"join": [...]}, {"first": [...]}, {"constant": ...} or {"generate": "lineNumber"}';
  }
  return issue.message;
}

/** Every source column a rule reads, for detection and for naming what a file lacks. */
export function columnsOfRule(rule: Rule): string[] {
  if ('column' in rule) return rule.minus !== undefined ? [rule.column, rule.minus] : [rule.column];
  if ('join' in rule) return rule.join;
  if (isFirstRule(rule)) return rule.first;
  return [];
}

export function isOptionalRule(rule: Rule): boolean {
  return ('column' in rule || 'join' in rule || 'first' in rule) && rule.optional === true;
}
