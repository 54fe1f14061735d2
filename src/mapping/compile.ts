/**
 * A profile applied to one header row: which source column each rule reads, what the file lacks, and
 * the labels issues carry (a joined or constant field says so). Pure: the row mapping is row-map.ts.
 */
import { severityOf, type Issue } from '../issues/index.js';
import { COLUMN_BY_FIELD, FIELDS, normalizeHeader, type Field } from '../sheet/columns.js';
import { toColumnLetter } from '../sheet/column-letters.js';
import { isOptionalRule, type Profile, type Rule, isFirstRule } from './profile.js';

/** One field the profile feeds: computed from the source row into a column after the source's own. */
export interface DerivedColumn {
  field: Field;
  rule: Rule;
  /** How issues name it: the source header, or what the profile made of the columns (`A + B`, a constant). */
  label: string;
  /** The source columns it reads (0-based), in rule order; empty for a constant or a generated value. */
  sources: number[];
  /** The column subtracted (a `minus` rule), or -1. */
  minusSource: number;
}

export interface CompiledMapping {
  profile: Profile;
  /** The source sheet's width (its header count): derived column k is at width + k in a mapped row. */
  width: number;
  sourceHeaders: readonly string[];
  derived: DerivedColumn[];
  /** Order-level amounts added up over the order's lines (rules with `sum`). */
  summed: Field[];
  /** Order-level fields read from the order's first line only (rules with `first`). */
  firstOnly: Field[];
  /** File-level issues: a column the profile reads that the file lacks; a required field the profile has no rule for. */
  issues: Issue[];
  /** Source columns read by no rule and not in the profile's `ignore` list. */
  unread: number[];
  /**
   * The field of every column of a mapped row, for the result file's Fix sheet (template form) and for
   * pointing API-side issues at cells: a source column gets the first field it feeds, a derived one its field.
   */
  displayColumns: (Field | null)[];
}

/** Where a rule's column is in the header row (matched as the template's headers are: case, spaces, `_` and `-` aside). */
function indexHeaders(headers: readonly string[]): Map<string, number> {
  const byKey = new Map<string, number>();
  headers.forEach((h, i) => {
    const key = normalizeHeader(h);
    if (key !== '' && !byKey.has(key)) byKey.set(key, i);
  });
  return byKey;
}

export function compileProfile(profile: Profile, headers: readonly string[]): CompiledMapping {
  const byKey = indexHeaders(headers);
  const find = (name: string): number => byKey.get(normalizeHeader(name)) ?? -1;
  const derived: DerivedColumn[] = [];
  const issues: Issue[] = [];
  const read = new Set<number>();
  const who = `the ${profile.label} profile (${profile.name})`;

  for (const field of FIELDS) {
    const rule = profile.fields[field];
    if (rule === undefined) continue;
    const resolved = resolveRule(field, rule, find, headers, who);
    for (const s of resolved.sources) read.add(s);
    if (resolved.minusSource >= 0) read.add(resolved.minusSource);
    if (resolved.missing.length > 0 && !isOptionalRule(rule)) {
      const names = resolved.missing.map((m) => `"${m}"`).join(' and ');
      issues.push(fileIssue('missing_column', field, `The file has no ${names} column, which ${who} reads for ${field}: ${resolved.missing.length === 1 ? 'is it' : 'are they'} named differently in this export? Add the column, or change the profile's "${field}" rule.`));
    }    // An optional column the export may lack (Etsy has no phone), for a field every order needs: say what to do once.
    else if (!resolved.isUsable && COLUMN_BY_FIELD.get(field)?.requiredColumn === true) {
      const names = resolved.missing.map((m) => `"${m}"`).join(' or ');
      issues.push(fileIssue('missing_column', field, `The file has no ${names} column, which ${who} reads for ${field}, and every order needs a ${field}: add the column to the file, or give ${field} a constant in a copy of the profile ("${field}": { "constant": "..." }).`));
    }
    if (resolved.isUsable) derived.push({ field, rule, label: resolved.label, sources: resolved.sources, minusSource: resolved.minusSource });
  }
  for (const def of COLUMN_BY_FIELD.values()) {
    if (def.requiredColumn && profile.fields[def.field] === undefined) {
      issues.push(fileIssue('missing_column', def.field, `${capitalize(who)} gives no source for ${def.field}, which every order needs: add a rule for it, e.g. "${def.field}": { "column": "..." }.`));
    }
  }

  const ignored = new Set((profile.ignore ?? []).map(normalizeHeader));
  const unread: number[] = [];
  headers.forEach((h, i) => {
    if (!read.has(i) && h.trim() !== '' && !ignored.has(normalizeHeader(h))) unread.push(i);
  });

  const displayColumns: (Field | null)[] = headers.map(() => null);
  for (const d of derived) {
    for (const s of d.sources) if (displayColumns[s] === null) displayColumns[s] = d.field;
  }
  displayColumns.push(...derived.map((d) => d.field));
  const summed = derived.filter((d) => 'column' in d.rule && d.rule.sum === true).map((d) => d.field);
  const firstOnly = derived.filter((d) => 'column' in d.rule && d.rule.first === true).map((d) => d.field);
  return { profile, width: headers.length, sourceHeaders: headers, derived, summed, firstOnly, issues, unread, displayColumns };
}

interface ResolvedRule {
  sources: number[];
  minusSource: number;
  missing: string[];
  label: string;
  /** Whether the rule can feed its field in this file (all it needs is there). */
  isUsable: boolean;
}

function resolveRule(field: Field, rule: Rule, find: (name: string) => number, headers: readonly string[], who: string): ResolvedRule {
  const header = (i: number) => headers[i]!.trim();
  if ('constant' in rule) return { sources: [], minusSource: -1, missing: [], label: `${field} (set to "${rule.constant}" by ${who})`, isUsable: true };
  if ('generate' in rule) return { sources: [], minusSource: -1, missing: [], label: `${field} (each line's number within its order, given by ${who})`, isUsable: true };
  if ('join' in rule) {
    const found = rule.join.map(find);
    const missing = rule.join.filter((_, k) => found[k]! < 0);
    const sources = found.filter((i) => i >= 0);
    return { sources, minusSource: -1, missing, label: sources.map(header).join(' + '), isUsable: sources.length > 0 };
  }
  if (isFirstRule(rule)) {
    const found = rule.first.map(find);
    const sources = found.filter((i) => i >= 0);
    return { sources, minusSource: -1, missing: sources.length === 0 ? rule.first : [], label: sources.map(header).join(' or '), isUsable: sources.length > 0 };
  }
  const source = find(rule.column);
  const minusSource = rule.minus === undefined ? -1 : find(rule.minus);
  const missing = [...(source < 0 ? [rule.column] : []), ...(rule.minus !== undefined && minusSource < 0 ? [rule.minus] : [])];
  if (missing.length > 0) return { sources: source >= 0 ? [source] : [], minusSource, missing, label: rule.column, isUsable: false };
  let label = header(source);
  if (minusSource >= 0) label = `${label} - ${header(minusSource)}`;
  if (rule.perUnit) label = `${minusSource >= 0 ? `(${label})` : label} per unit`;
  if (rule.split !== undefined) label = `${label} (part ${rule.part ?? 1})`;
  return { sources: [source], minusSource, missing: [], label, isUsable: true };
}

function fileIssue(code: 'missing_column' | 'unknown_column', column: string | null, message: string): Issue {
  return { row: null, column, code, severity: severityOf(code), message };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Who reads a file-level message: a CLI user edits the profile file; a web user chooses in the page. */
export type Audience = 'cli' | 'web';

/** "3 columns are not read (A, B and C)": one warning for the columns no rule reads, with what to do where the reader is. */
export function describeUnread(compiled: CompiledMapping, audience: Audience = 'cli'): Issue | null {
  const n = compiled.unread.length;
  if (n === 0) return null;
  const names = compiled.unread.slice(0, 8).map((i) => `"${compiled.sourceHeaders[i]!.trim()}" (${toColumnLetter(i)})`);
  const more = n > 8 ? ` and ${n - 8} more` : '';
  const todo =
    audience === 'web'
      ? `If ${n === 1 ? 'it holds' : 'one holds'} order data, choose its field with "Change which column feeds each field" on this page.`
      : 'Add a rule to the profile if one holds order data.';
  return fileIssue('unknown_column', null, `${n} column${n === 1 ? ' is' : 's are'} not read by the ${compiled.profile.label} profile: ${names.join(', ')}${more}. ${todo}`);
}
