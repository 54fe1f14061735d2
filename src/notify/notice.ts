/**
 * What a run's notification says (PRODUCT.md section 9), built from its run report: pure, so the
 * webhook's JSON and the mail's words are tested without a server. Only what a person needs to act
 * goes in: counts, and per problem its file, row, order id, field and code. A message never quotes a
 * cell (which may be a buyer's name, address or e-mail): quoted values and e-mail addresses are cut.
 */
import { basename } from 'node:path';
import type { JsonReport } from '../run-report/json.js';

/** At most this many problems in one notification: enough to see what went wrong, small enough for a chat message. */
export const MAX_PROBLEMS = 20;

export interface NoticeProblem {
  file: string | null;
  row: number | null;
  order: string | null;
  field: string | null;
  code: string;
  message: string;
}

export interface RunNotice {
  event: 'run.finished';
  command: string;
  runId: string | null;
  exitCode: number;
  summary: Record<string, number>;
  problems: NoticeProblem[];
  files: string[];
  url?: string;
  text: string;
}

export interface RunFacts {
  command: 'import' | 'reconcile';
  runId: string | null;
  exitCode: number;
  report: JsonReport;
  /** Where the run can be seen in the web app, when it has a public address (--public-url). */
  url?: string;
}

/** Order statuses that need a person, and reconcile's counts that do. */
const PROBLEM_STATUSES = ['invalid', 'rejected', 'failed', 'exception', 'late', 'not_found'];

/** problems: an exit code not 0, or an order invalid, rejected or failed, or a shipment late or in exception. */
export function hasProblems(facts: Pick<RunFacts, 'exitCode' | 'report'>): boolean {
  if (facts.exitCode !== 0) return true;
  return PROBLEM_STATUSES.some((status) => (facts.report.summary[status] ?? 0) > 0);
}

export function buildNotice(facts: RunFacts): RunNotice {
  const { report } = facts;
  const notice: Omit<RunNotice, 'text'> = {
    event: 'run.finished',
    command: facts.command,
    runId: facts.runId,
    exitCode: facts.exitCode,
    summary: { ...report.summary },
    problems: problemsOf(report),
    files: [report.output ?? []].flat(),
    ...(facts.url ? { url: facts.url } : {}),
  };
  return { ...notice, text: describeNotice(notice) };
}

/** One line for a chat tool: "order-batch import: exit 1, 40 accepted, 2 rejected. <url>". */
export function describeNotice(notice: Omit<RunNotice, 'text'>): string {
  const counts = Object.entries(notice.summary)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status.replaceAll('_', ' ')}`);
  const head = `order-batch ${notice.command}${notice.runId ? ` (run ${notice.runId})` : ''}: ${notice.exitCode === 0 ? 'finished' : `exit code ${notice.exitCode}`}`;
  const problems = notice.problems.length > 0 ? ` ${notice.problems.length}${notice.problems.length === MAX_PROBLEMS ? '+' : ''} problem${notice.problems.length === 1 ? '' : 's'} to look at.` : '';
  return `${head}${counts.length ? `, ${counts.join(', ')}` : ''}.${problems}${notice.url ? ` ${notice.url}` : ''}`;
}

/** The mail: a subject and the same facts in words, one problem a line. */
export function describeNoticeForMail(notice: RunNotice): { subject: string; body: string } {
  const subject = `order-batch ${notice.command}: ${notice.exitCode === 0 && notice.problems.length === 0 ? 'finished' : 'needs a look'} (exit code ${notice.exitCode})`;
  const lines = [notice.text, ''];
  if (notice.problems.length > 0) {
    lines.push('Problems:');
    for (const p of notice.problems) {
      const where = [p.file ? basename(p.file) : null, p.row !== null ? `row ${p.row}` : null, p.order ? `order ${p.order}` : null, p.field ? `field ${p.field}` : null].filter(Boolean).join(', ');
      lines.push(`- ${where ? `${where}: ` : ''}${p.code}: ${p.message}`);
    }
    lines.push('');
  }
  if (notice.files.length > 0) lines.push('Files written:', ...notice.files.map((f) => `- ${f}`), '');
  if (notice.url) lines.push(`See the run: ${notice.url}`);
  return { subject, body: `${lines.join('\n').trimEnd()}\n` };
}

interface ReportOrder {
  customerOrderId?: string | null;
  file?: string;
  rows?: number[];
  status?: string;
  issues?: { row: number | null; column: string | null; code: string; severity: string; message: string }[];
  exceptions?: { type: string; detail: string }[];
}

function problemsOf(report: JsonReport): NoticeProblem[] {
  const problems: NoticeProblem[] = [];
  const push = (problem: NoticeProblem) => problems.length < MAX_PROBLEMS && problems.push(problem);
  for (const input of report.input) {
    if (input.error) push({ file: input.file, row: null, order: null, field: null, code: input.error.code, message: withoutPersonalData(input.error.message) });
  }
  if (!hasProblems({ exitCode: 0, report })) return problems;
  for (const order of report.orders as Iterable<ReportOrder>) {
    if (problems.length >= MAX_PROBLEMS) break;
    for (const exception of order.exceptions ?? []) {
      push({ file: null, row: null, order: order.customerOrderId ?? null, field: null, code: exception.type, message: withoutPersonalData(exception.detail) });
    }
    if (!order.status || !PROBLEM_STATUSES.includes(order.status)) continue;
    const errors = (order.issues ?? []).filter((issue) => issue.severity === 'error');
    if (errors.length === 0) push({ file: order.file ?? null, row: order.rows?.[0] ?? null, order: order.customerOrderId ?? null, field: null, code: order.status, message: `The order was ${order.status}.` });
    for (const issue of errors) {
      push({ file: order.file ?? null, row: issue.row ?? order.rows?.[0] ?? null, order: order.customerOrderId ?? null, field: issue.column, code: issue.code, message: withoutPersonalData(issue.message) });
    }
  }
  return problems;
}

/** A message with the values it quotes (cells, a server's echo of them) and any e-mail address cut out. */
export function withoutPersonalData(message: string): string {
  return message
    .replace(/"[^"]*"|“[^”]*”/g, '(value)')
    .replace(/[^\s@,;:()<>"']+@[^\s@,;:()<>"']+/g, '(address)');
}
