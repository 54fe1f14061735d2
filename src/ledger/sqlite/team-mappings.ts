/** Saved column mappings in an SQLite ledger: one row per name, each save or removal one statement. */
import type { Database } from 'better-sqlite3';
import { preparedOnce } from '../../sqlite/open-database.js';
import type { MappingTable } from '../team-types.js';
import { carryMappingsSetting, LEGACY_MAPPINGS_SETTING, toMapping, type MappingRow } from '../mapping-rows.js';

export const SQLITE_MAPPINGS_TABLE = `
  CREATE TABLE mappings (
    name     TEXT PRIMARY KEY,
    profile  TEXT NOT NULL,
    saved_by TEXT NOT NULL,
    saved_at TEXT NOT NULL
  ) STRICT;
`;

/** Schema version 5: the table, and what the legacy setting holds moved into it (in the migration's transaction). */
export function createSqliteMappingsTable(db: Database): void {
  db.exec(SQLITE_MAPPINGS_TABLE);
  const setting = db.prepare('SELECT value, updated_at FROM settings WHERE name = ?').get(LEGACY_MAPPINGS_SETTING) as { value: string; updated_at: string } | undefined;
  if (!setting) return;
  const carried = carryMappingsSetting(setting.value, setting.updated_at);
  const insert = db.prepare('INSERT INTO mappings (name, profile, saved_by, saved_at) VALUES (?, ?, ?, ?)');
  for (const m of carried.mappings) insert.run(m.name, m.profile, m.savedBy, m.savedAt);
  if (carried.isWhole) db.prepare('DELETE FROM settings WHERE name = ?').run(LEGACY_MAPPINGS_SETTING);
}

export function createSqliteMappings(db: Database, now: () => Date): MappingTable {
  const sql = preparedOnce(db);
  return {
    async list() {
      return (sql('SELECT * FROM mappings ORDER BY name').all() as MappingRow[]).map(toMapping);
    },
    async save(mapping) {
      const row = sql(
        `INSERT INTO mappings (name, profile, saved_by, saved_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET profile = excluded.profile, saved_by = excluded.saved_by, saved_at = excluded.saved_at
         RETURNING *`,
      ).get(mapping.name, mapping.profile, mapping.savedBy, now().toISOString()) as MappingRow;
      return toMapping(row);
    },
    async remove(name) {
      return sql('DELETE FROM mappings WHERE name = ?').run(name).changes > 0;
    },
  };
}
