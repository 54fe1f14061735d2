/**
 * Checking a sheet through a profile. The checker reads mapped rows (the source cells, then the derived
 * ones) and the result is turned back to the source: the result file is the input row for row, every
 * issue points at the source file's row and column (a joined or constant field says so in its label),
 * and the Fix sheet, in template form, takes the derived values.
 *
 * Each order is turned back as the checker finishes it (reviseOrder), so its verdict is kept as it is
 * reported, on disk past the checker's window like any other. What the mapping found wrong with a row is
 * not kept either: only which rows had something (a bit each); their problems are found again from the
 * row's stored cells when their order is finished, as often as it is.
 */
import type { Issue } from '../issues/index.js';
import type { MappedColumns, OrderVerdict } from '../orders/check-sheet.js';
import type { CheckedSheet } from '../orders/types.js';
import type { Field } from '../sheet/columns.js';
import type { CellValue, OpenedSheet, RawRow } from '../sheet/types.js';
import { describeUnread, type Audience, type CompiledMapping } from './compile.js';
import { RowMapper, type NumberReading, type RowProblem } from './row-map.js';

export interface MappedSheet {
  /** The sheet the checker reads: mapped rows, the derived columns' labels after the source headers. */
  sheet: OpenedSheet;
  columns: MappedColumns;
  /** An order's verdict turned back to the source file (CheckSheetOptions.reviseOrder); `cellsOf` gives a mapped row's cells. */
  reviseOrder(verdict: OrderVerdict, cellsOf: (rowNumber: number) => readonly CellValue[]): OrderVerdict;
  /** The sheet's own headers, columns and file issues back (call once every row has been read). */
  rebase(checked: CheckedSheet): CheckedSheet;
}

export function mapOpenedSheet(opened: OpenedSheet, compiled: CompiledMapping, numbers: NumberReading, audience: Audience = 'cli'): MappedSheet {
  const mapper = new RowMapper(compiled, numbers);
  const flagged = new RowFlags();
  const width = compiled.width;

  async function* mapRows(): AsyncGenerator<RawRow[]> {
    for await (const batch of opened.rows) {
      for (let i = 0; i < batch.length; i++) {
        const raw = batch[i]!;
        const row = mapper.map(raw.cells);
        if (row.problems !== null || row.unavailable !== null) flagged.set(raw.rowNumber);
        batch[i] = { rowNumber: raw.rowNumber, cells: row.cells };
      }
      yield batch;
    }
  }

  const columnFields: (Field | null)[] = [...opened.headers.map(() => null), ...compiled.derived.map((d) => d.field)];
  const unread = describeUnread(compiled, audience);
  const sheet: OpenedSheet = {
    ...opened,
    headers: [...opened.headers, ...compiled.derived.map((d) => d.label)],
    rows: mapRows(),
  };
  // A profile that maps no total has them computed, as one that says so: a warning on every order would tell nothing.
  const fields = compiled.profile.fields;
  const isComputed = compiled.profile.totals === 'computed' || (fields.subTotal === undefined && fields.discountTotal === undefined && fields.grandTotal === undefined);
  const toSource = (issue: Issue): Issue => pointAtSource(issue, compiled);

  return {
    sheet,
    columns: { columns: columnFields, issues: [...compiled.issues, ...(unread ? [unread] : [])], ...(compiled.summed.length > 0 && { summed: compiled.summed }), ...(compiled.firstOnly.length > 0 && { firstOnly: compiled.firstOnly }) },
    reviseOrder(verdict, cellsOf) {
      const extra: Issue[] = [];
      let found: Map<number, { problems: RowProblem[] | null; unavailable: number[] | null }> | null = null;
      for (const row of verdict.rows) {
        if (!flagged.has(row)) continue;
        const again = mapper.problemsOf(cellsOf(row));
        (found ??= new Map()).set(row, again);
        for (const p of again.problems ?? []) extra.push(rowIssue(row, p, compiled));
      }
      // A derived cell left blank because of a problem on its source row: that problem says it, not "required".
      const explained = (issue: Issue): boolean => {
        if (found === null || issue.row === null || issue.code !== 'required' || issue.colIndex === undefined || issue.colIndex < width) return false;
        const k = issue.colIndex - width;
        const row = found.get(issue.row);
        return (row?.unavailable?.includes(k) ?? false) || (row?.problems?.some((p) => p.derived === k) ?? false);
      };
      const issues = verdict.issues
        .filter((i) => !explained(i) && !(isComputed && i.code === 'computed_total'))
        .map((i) => (i.code === 'missing_column' ? profileMissing(i, compiled) : toSource(i)));
      issues.push(...extra);
      if (extra.length > 0) issues.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
      return { rows: verdict.rows, status: extra.some((i) => i.severity === 'error') ? 'invalid' : verdict.status, issues };
    },
    rebase(checked) {
      return {
        ...checked,
        headers: opened.headers,
        columns: compiled.displayColumns,
        fileIssues: checked.fileIssues.map((i) => (i.colIndex !== undefined && i.colIndex >= width ? toSource(i) : i)),
      };
    },
  };
}

/** A set of spreadsheet row numbers, a bit each: the rows of a ten-million-row sheet in about a megabyte. */
class RowFlags {
  private bits = new Uint8Array(1024);

  set(row: number): void {
    const byte = row >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte] = this.bits[byte]! | (1 << (row & 7));
  }

  has(row: number): boolean {
    const byte = row >>> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (row & 7))) !== 0;
  }
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
