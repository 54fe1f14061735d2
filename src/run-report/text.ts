/** The run report in words, printed when --json is not given: what happened, where the result is, the first problems. */
import { basename } from 'node:path';
import { escapeControlCharacters } from '../terminal-text.js';
import type { JsonReport } from './json.js';

/** Enough to act on at a glance; the result file holds every issue. */
const MAX_LISTED_ISSUES = 20;

/** Orders already sent whose sheet now says otherwise (contentsDiffer), for the text summary and the result's Summary sheet. */
export function describeNotApplied(count: number): string {
  const orders = count === 1 ? '1 order was' : `${count} orders were`;
  return `${orders} already sent with other contents than the sheet's: the fulfillment network keeps the version sent, so the changes were not applied (see the already_exists issues).`;
}

export function formatValidateText(report: JsonReport): string {
  const lines: string[] = [];
  const outputs = report.output === null ? [] : Array.isArray(report.output) ? report.output : [report.output];
  // A watched folder with nothing new is a normal night, not an error.
  if (report.input.length === 0) return 'No order sheets found: nothing to do.\n';
  for (const input of report.input) {
    if (input.error) {
      // A sheet's error names its file first (InputError): said once, not twice.
      lines.push(input.error.message.startsWith(input.file) ? input.error.message : `${input.file}: ${input.error.message}`);
      continue;
    }
    if (input.mapping) lines.push(input.mapping.description);
    lines.push(`${input.file}: ${input.rows} row${input.rows === 1 ? '' : 's'}, ${input.orders} order${input.orders === 1 ? '' : 's'}`);
    for (const notice of input.notices ?? []) lines.push(`  note: ${notice}`);
    for (const issue of input.issues ?? []) lines.push(`  ${issue.severity}: ${issue.message}`);
  }
  const counts = Object.entries(report.summary)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  if (counts) lines.push(`Orders: ${counts}`);
  const differ = report.contentsDiffer ?? 0;
  if (differ > 0) lines.push(`Not applied: ${describeNotApplied(differ)}`);

  lines.push(...listProblems(report));
  lines.push(...describeWarnings(report, report.input.length > 1));
  for (const out of outputs) lines.push(`Result: ${out}`);
  for (const moved of report.archived ?? []) lines.push(`Archived: ${moved.file} to ${moved.sheet}${moved.result ? ', with its result' : ''}`);
  for (const stays of report.kept ?? []) lines.push(`Not archived: ${stays.file} stays where it is, with its result ${stays.result}: ${stays.reason}.`);
  return `${lines.map(escapeControlCharacters).join('\n')}\n`;
}

interface ListedOrder {
  customerOrderId: string | null;
  file?: string;
  issues: { row: number | null; column: string | null; code: string; severity: string; message: string }[];
}

/** Rows named on one line of a problem shared by several; the others are counted. */
const MAX_NAMED_ROWS = 5;

/**
 * The errors, each said once: the same problem of several rows (every order "Not sent: the API could not be
 * reached", the same column missing in every row) is one line naming the first rows and how many in all.
 */
function listProblems(report: JsonReport): string[] {
  const isSeveralFiles = report.input.length > 1;
  const groups = new Map<string, { column: string | null; message: string; places: Place[] }>();
  for (const order of report.orders as ListedOrder[]) {
    for (const issue of order.issues) {
      // A missing column is said once, with its file, above; every order repeats it only in the result file.
      if (issue.severity !== 'error' || issue.code === 'missing_column') continue;
      const key = `${issue.column ?? ''}\u0000${issue.code}\u0000${issue.message}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { column: issue.column, message: issue.message, places: [] }));
      group.places.push({ file: isSeveralFiles && order.file ? basename(order.file) : null, row: issue.row });
    }
  }
  const lines: string[] = [];
  let listed = 0;
  let total = 0;
  for (const { column, message, places } of groups.values()) {
    total += places.length;
    if (lines.length >= MAX_LISTED_ISSUES) continue;
    listed += places.length;
    lines.push(`  ${[describePlaces(places), column].filter(Boolean).join(', ')}: ${message}`);
  }
  if (lines.length === 0) return [];
  if (total > listed) lines.push(`  ... and ${total - listed} more in the result file.`);
  return ['Problems:', ...lines];
}

interface Place {
  file: string | null;
  row: number | null;
}

/** "row 4"; "rows 2, 3, 5, 8, 9 and 3 more (8 in all)"; with several files "a.csv, row 2" and "a.csv row 2, b.csv row 7 (2 in all)". */
function describePlaces(places: readonly Place[]): string {
  if (places.length === 1) return [places[0]!.file, places[0]!.row !== null ? `row ${places[0]!.row}` : null].filter(Boolean).join(', ');
  const hasFiles = places.some((p) => p.file !== null);
  const named = places.slice(0, MAX_NAMED_ROWS).flatMap((p) => {
    const row = p.row === null ? null : String(p.row);
    return hasFiles ? [[p.file, row === null ? null : `row ${row}`].filter(Boolean).join(' ')] : row === null ? [] : [row];
  });
  const more = places.length > MAX_NAMED_ROWS ? ` and ${places.length - MAX_NAMED_ROWS} more` : '';
  const list = named.length === 0 ? '' : `${hasFiles ? '' : 'rows '}${named.join(', ')}${more} `;
  return `${list}(${places.length} in all)`;
}

/** Warnings listed after the errors: how many, and the first few (the result file has them all). */
const MAX_LISTED_WARNINGS = 5;

type JsonIssueView = { row: number | null; column: string | null; code: string; severity: string; message: string };

function describeWarnings(report: JsonReport, isSeveralFiles: boolean): string[] {
  const warnings: { file?: string; issue: JsonIssueView }[] = [];
  for (const order of report.orders as { file?: string; issues: JsonIssueView[] }[]) {
    for (const issue of order.issues) if (issue.severity === 'warning') warnings.push({ ...(order.file !== undefined && { file: order.file }), issue });
  }
  if (warnings.length === 0) return [];
  const lines = [`Warnings: ${warnings.length} (the orders were read; check that this is what was meant)`];
  for (const { file, issue } of warnings.slice(0, MAX_LISTED_WARNINGS)) {
    const where = [isSeveralFiles && file ? basename(file) : null, issue.row !== null ? `row ${issue.row}` : null, issue.column].filter(Boolean).join(', ');
    lines.push(`  ${where}: ${issue.message}`);
  }
  if (warnings.length > MAX_LISTED_WARNINGS) lines.push(`  ... and ${warnings.length - MAX_LISTED_WARNINGS} more in the result file.`);
  return lines;
}

interface ReconciledJson {
  customerOrderId: string;
  status: string;
  exceptions: { type: string; detail: string }[];
}

export function formatReconcileText(report: JsonReport & { confirmations?: string; confirmationFiles?: { path: string; packages: number; rows: number }[]; confirmationNotes?: string[] }): string {
  const lines: string[] = [];
  const counts = Object.entries(report.summary)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  lines.push(`Orders: ${counts || 'none selected'}`);
  let listed = 0;
  let total = 0;
  for (const order of report.orders as ReconciledJson[]) {
    for (const ex of order.exceptions) {
      total++;
      if (listed >= MAX_LISTED_ISSUES) continue;
      if (listed === 0) lines.push('Exceptions:');
      lines.push(`  ${order.customerOrderId}: ${ex.type}: ${ex.detail}`);
      listed++;
    }
  }
  if (total > listed) lines.push(`  ... and ${total - listed} more in the workbook.`);
  if (report.output) lines.push(`Workbook: ${String(report.output)}`);
  if (report.confirmationFiles) for (const f of report.confirmationFiles) lines.push(`Confirmations: ${f.path} (${f.packages} package(s), ${f.rows} row(s))`);
  else if (report.confirmations) lines.push(`Confirmations: ${report.confirmations}`);
  for (const note of report.confirmationNotes ?? []) lines.push(note);
  return `${lines.map(escapeControlCharacters).join('\n')}\n`;
}
