/**
 * Checking a sheet through a profile. The checker reads mapped rows (the source cells, then the derived
 * ones) and the result is turned back to the source: the result file is the input row for row, every
 * issue points at the source file's row and column (a joined or constant field says so in its label),
 * and the Fix sheet, in template form, takes the derived values.
 */
import type { Issue } from '../issues/index.js';
import type { MappedColumns } from '../orders/check-sheet.js';
import type { CheckedSheet } from '../orders/types.js';
import type { Field } from '../sheet/columns.js';
import type { OpenedSheet, RawRow } from '../sheet/types.js';
import { describeUnread, type CompiledMapping } from './compile.js';
import { RowMapper, type NumberReading, type RowProblem } from './row-map.js';

export interface MappedSheet {
  /** The sheet the checker reads: mapped rows, the derived columns' labels after the source headers. */
  sheet: OpenedSheet;
  columns: MappedColumns;
  /** Turns the checker's result back to the source file (call once every row has been read). */
  rebase(checked: CheckedSheet): CheckedSheet;
}

export function mapOpenedSheet(opened: OpenedSheet, compiled: CompiledMapping, numbers: NumberReading): MappedSheet {
  const mapper = new RowMapper(compiled, numbers);
  const problemsByRow = new Map<number, RowProblem[]>();
  const unavailableByRow = new Map<number, number[]>();
  const width = compiled.width;

  async function* mapRows(): AsyncGenerator<RawRow[]> {
    for await (const batch of opened.rows) {
      const mapped: RawRow[] = new Array<RawRow>(batch.length);
      for (let i = 0; i < batch.length; i++) {
        const raw = batch[i]!;
        const row = mapper.map(raw.cells);
        if (row.problems !== null) problemsByRow.set(raw.rowNumber, row.problems);
        if (row.unavailable !== null) unavailableByRow.set(raw.rowNumber, row.unavailable);
        mapped[i] = { rowNumber: raw.rowNumber, cells: row.cells };
      }
      yield mapped;
    }
  }

  const columnFields: (Field | null)[] = [...opened.headers.map(() => null), ...compiled.derived.map((d) => d.field)];
  const unread = describeUnread(compiled);
  // Without the reader's prepared result text (cellText): the checker's rows are longer than the file's.
  const { cellText: _dropped, ...rest } = opened as OpenedSheet & { cellText?: unknown };
  const sheet: OpenedSheet = {
    ...rest,
    headers: [...opened.headers, ...compiled.derived.map((d) => d.label)],
    rows: mapRows(),
  };

  return {
    sheet,
    columns: { columns: columnFields, issues: [...compiled.issues, ...(unread ? [unread] : [])], ...(compiled.summed.length > 0 && { summed: compiled.summed }) },
    rebase(checked) {
      const toSource = (issue: Issue): Issue => pointAtSource(issue, compiled);
      // A profile that maps no total has them computed, as one that says so: a warning on every order would tell nothing.
      const fields = compiled.profile.fields;
      const isComputed = compiled.profile.totals === 'computed' || (fields.subTotal === undefined && fields.discountTotal === undefined && fields.grandTotal === undefined);
      for (const order of checked.orders) {
        const extra: Issue[] = [];
        for (const row of order.rows) {
          for (const p of problemsByRow.get(row) ?? []) extra.push(rowIssue(row, p, compiled));
        }
        const explained = (issue: Issue): boolean => {
          if (issue.row === null || issue.code !== 'required' || issue.colIndex === undefined || issue.colIndex < width) return false;
          const k = issue.colIndex - width;
          return (unavailableByRow.get(issue.row)?.includes(k) ?? false) || (problemsByRow.get(issue.row)?.some((p) => p.derived === k) ?? false);
        };
        const issues = order.issues
          .filter((i) => !explained(i) && !(isComputed && i.code === 'computed_total'))
          .map((i) => (i.code === 'missing_column' ? profileMissing(i, compiled) : toSource(i)));
        issues.push(...extra);
        if (extra.length > 0) issues.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
        order.issues = issues;
        if (extra.some((i) => i.severity === 'error')) order.status = 'invalid';
      }
      return {
        ...checked,
        headers: opened.headers,
        columns: compiled.displayColumns,
        fileIssues: checked.fileIssues.map((i) => (i.colIndex !== undefined && i.colIndex >= width ? toSource(i) : i)),
      };
    },
  };
}

/** An issue on a derived column, moved to the source cell it came from (the first, for a joined field; none for a constant). */
function pointAtSource(issue: Issue, compiled: CompiledMapping): Issue {
  if (issue.colIndex === undefined || issue.colIndex < compiled.width) return issue;
  const d = compiled.derived[issue.colIndex - compiled.width];
  if (d === undefined) return issue;
  const { colIndex: _derived, ...rest } = issue;
  const source = d.sources[0];
  if (source === undefined) return { ...rest, column: d.label };
  return { ...rest, column: d.sources.length === 1 ? compiled.sourceHeaders[source]!.trim() : d.label, colIndex: source };
}

function rowIssue(row: number, p: RowProblem, compiled: CompiledMapping): Issue {
  return { row, column: compiled.sourceHeaders[p.col]!.trim(), code: p.code, severity: 'error', message: p.message, colIndex: p.col };
}

/** "The sheet has no X column" says what to do to a template; for a profile, what it lacks says more. */
function profileMissing(issue: Issue, compiled: CompiledMapping): Issue {
  const field = issue.column as Field | null;
  const rule = field === null ? undefined : compiled.profile.fields[field];
  const who = `the ${compiled.profile.label} profile (${compiled.profile.name})`;
  const why = rule === undefined ? `${who} gives no source for ${field}` : `the column that ${who} reads for ${field} is not in the file`;
  return { ...issue, message: `This order cannot be sent: ${why}, and every order needs one (see the note about the whole file).` };
}
