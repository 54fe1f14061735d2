/**
 * The rows `ledger copy` carries that are held under a lease: remote file claims (a team moving ledgers
 * must not process yesterday's remote sheets again) and schedule occurrences (nor run an occurrence
 * that ran). Both backends keep them column for column alike (times as ISO 8601 UTC text), so one
 * description serves both sides, and one pure rule decides what the copy does with each (decide.ts).
 */

export type LeasedRow = Record<string, string | number | null>;

export interface LeasedTable {
  readonly table: 'remote_files' | 'schedule_occurrences';
  /** The primary key's columns. */
  readonly key: readonly string[];
  readonly columns: readonly string[];
  /** The row's work is over (processed, released for retry, ran or missed): not held by anyone. */
  isSettled(row: LeasedRow): boolean;
}

export const REMOTE_FILES: LeasedTable = {
  table: 'remote_files',
  key: ['location', 'version'],
  columns: ['location', 'version', 'state', 'holder', 'host', 'claimed_at', 'lease_until', 'finished_at', 'outcome'],
  isSettled: (row) => row.state !== 'claimed',
};

export const SCHEDULE_OCCURRENCES: LeasedTable = {
  table: 'schedule_occurrences',
  key: ['schedule_name', 'scheduled_at'],
  columns: ['schedule_name', 'scheduled_at', 'kind', 'state', 'holder', 'host', 'lease_expires_at', 'starts', 'started_at', 'finished_at', 'outcome', 'exit_code', 'summary', 'run_id', 'message'],
  isSettled: (row) => row.state !== 'running',
};

export const LEASED_TABLES = [REMOTE_FILES, SCHEDULE_OCCURRENCES] as const;

/** The row's key as one text, the same on both backends. */
export function leasedKey(table: LeasedTable, row: LeasedRow): string {
  return JSON.stringify(table.key.map((column) => row[column]));
}

/** Only the table's columns, numbers as numbers: what both backends read alike. */
export function leasedRowOf(table: LeasedTable, row: Record<string, unknown>): LeasedRow {
  const picked: LeasedRow = {};
  for (const column of table.columns) {
    const value = row[column];
    picked[column] = value === undefined || value === null ? null : typeof value === 'number' || typeof value === 'string' ? value : String(value);
  }
  return picked;
}

/** The upsert of one row, `placeholder(i)` the backend's parameter for column i (from 1). */
export function upsertLeasedSql(table: LeasedTable, placeholder: (i: number) => string): string {
  const rest = table.columns.filter((c) => !table.key.includes(c));
  return `INSERT INTO ${table.table} (${table.columns.join(', ')}) VALUES (${table.columns.map((_, i) => placeholder(i + 1)).join(', ')})
    ON CONFLICT (${table.key.join(', ')}) DO UPDATE SET ${rest.map((c) => `${c} = excluded.${c}`).join(', ')}`;
}

/** The table's rows, key order. */
export function selectLeasedSql(table: LeasedTable): string {
  return `SELECT ${table.columns.join(', ')} FROM ${table.table} ORDER BY ${table.key.join(', ')}`;
}
