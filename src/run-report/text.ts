/** The run report in words, printed when --json is not given: what happened, where the result is, the first problems. */
import { basename } from 'node:path';
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
      lines.push(`${input.file}: ${input.error.message}`);
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

  let listed = 0;
  let total = 0;
  const isSeveralFiles = report.input.length > 1;
  for (const order of report.orders as { customerOrderId: string | null; file?: string; issues: { row: number | null; column: string | null; code: string; severity: string; message: string }[] }[]) {
    for (const issue of order.issues) {
      // A missing column is said once, with its file, above; every order repeats it only in the result file.
      if (issue.severity !== 'error' || issue.code === 'missing_column') continue;
      total++;
      if (listed >= MAX_LISTED_ISSUES) continue;
      if (listed === 0) lines.push('Problems:');
      const file = isSeveralFiles && order.file ? basename(order.file) : null;
      const where = [file, issue.row !== null ? `row ${issue.row}` : null, issue.column].filter(Boolean).join(', ');
      lines.push(`  ${where}: ${issue.message}`);
      listed++;
    }
  }
  if (total > listed) lines.push(`  ... and ${total - listed} more in the result file.`);
  lines.push(...describeWarnings(report, isSeveralFiles));
  for (const out of outputs) lines.push(`Result: ${out}`);
  for (const moved of report.archived ?? []) lines.push(`Archived: ${moved.file} to ${moved.sheet}${moved.result ? ', with its result' : ''}`);
  return `${lines.join('\n')}\n`;
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

export function formatReconcileText(report: JsonReport & { confirmations?: string }): string {
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
  if (report.confirmations) lines.push(`Confirmations: ${report.confirmations}`);
  return `${lines.join('\n')}\n`;
}
