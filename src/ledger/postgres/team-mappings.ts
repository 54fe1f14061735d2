/** Saved column mappings in a PostgreSQL ledger: one row per name, shared by every host; each save or removal one statement. */
import type pg from 'pg';
import type { MappingTable } from '../team-types.js';
import { carryMappingsSetting, LEGACY_MAPPINGS_SETTING, toMapping, type MappingRow } from '../mapping-rows.js';
import type { TeamContext } from './team-accounts.js';

/**
 * After migration 0003 created the table, in its transaction: what the legacy setting holds becomes rows.
 * Read with to_json so the time is ISO text whatever types the connection parses.
 */
export async function carryPostgresMappings(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ value: string; updated_at: string }>(
    `SELECT value, to_json(updated_at)#>>'{}' AS updated_at FROM settings WHERE name = $1`,
    [LEGACY_MAPPINGS_SETTING],
  );
  if (!rows[0]) return;
  const carried = carryMappingsSetting(rows[0].value, new Date(rows[0].updated_at).toISOString());
  for (const m of carried.mappings) {
    await client.query('INSERT INTO mappings (name, profile, saved_by, saved_at) VALUES ($1, $2, $3, $4)', [m.name, m.profile, m.savedBy, m.savedAt]);
  }
  if (carried.isWhole) await client.query('DELETE FROM settings WHERE name = $1', [LEGACY_MAPPINGS_SETTING]);
}

export function createPostgresMappings({ query, now }: TeamContext): MappingTable {
  return {
    async list() {
      const { rows } = await query<MappingRow>('SELECT * FROM mappings ORDER BY name COLLATE "C"');
      return rows.map(toMapping);
    },
    async save(mapping) {
      const { rows } = await query<MappingRow>(
        `INSERT INTO mappings (name, profile, saved_by, saved_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET profile = excluded.profile, saved_by = excluded.saved_by, saved_at = excluded.saved_at
         RETURNING *`,
        [mapping.name, mapping.profile, mapping.savedBy, now().toISOString()],
      );
      return toMapping(rows[0]!);
    },
    async remove(name) {
      const { rowCount } = await query('DELETE FROM mappings WHERE name = $1', [name]);
      return (rowCount ?? 0) > 0;
    },
  };
}
