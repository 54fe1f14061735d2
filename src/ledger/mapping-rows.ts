/**
 * Saved column mappings as both backends keep them (one row per name), and the carry-over of the one
 * setting that held them all before they had a table of their own.
 */
import type { StoredMapping } from './team-types.js';

/** The setting that held every saved mapping as one JSON list, before the mappings table. */
export const LEGACY_MAPPINGS_SETTING = 'mappings';

export interface MappingRow {
  name: string;
  profile: string;
  saved_by: string;
  saved_at: string;
}

export function toMapping(row: MappingRow): StoredMapping {
  return { name: row.name, profile: row.profile, savedBy: row.saved_by, savedAt: row.saved_at };
}

export interface CarriedMappings {
  mappings: StoredMapping[];
  /** Every entry of the setting became a row: the setting may go. False: it stays, for a person to read. */
  isWhole: boolean;
}

/**
 * The rows the legacy setting's list becomes. Each entry with a named profile is carried as it is
 * (whether it still reads as a profile is the mapping module's business, as it was); one saved twice
 * keeps its later entry, as a save always replaced the earlier one.
 */
export function carryMappingsSetting(value: string | null, settingUpdatedAt: string): CarriedMappings {
  if (value === null) return { mappings: [], isWhole: true };
  let stored: unknown;
  try {
    stored = JSON.parse(value);
  } catch {
    return { mappings: [], isWhole: false };
  }
  if (!Array.isArray(stored)) return { mappings: [], isWhole: false };
  const byName = new Map<string, StoredMapping>();
  let isWhole = true;
  for (const entry of stored as unknown[]) {
    const { profile, savedBy, savedAt } = (entry ?? {}) as { profile?: unknown; savedBy?: unknown; savedAt?: unknown };
    const name = typeof profile === 'object' && profile !== null ? (profile as { name?: unknown }).name : undefined;
    if (typeof name !== 'string' || name === '') {
      isWhole = false;
      continue;
    }
    byName.delete(name);
    byName.set(name, {
      name,
      profile: JSON.stringify(profile),
      savedBy: typeof savedBy === 'string' && savedBy !== '' ? savedBy : '(unknown)',
      savedAt: typeof savedAt === 'string' && !Number.isNaN(Date.parse(savedAt)) ? new Date(savedAt).toISOString() : settingUpdatedAt,
    });
  }
  return { mappings: [...byName.values()], isWhole };
}

/**
 * A ledger read as it is (ledger copy's source, never migrated): its mappings, and its settings
 * without the legacy one when that became mappings, as the migration would have made them.
 */
export function mappingsOfUnmigrated(settings: readonly { name: string; value: string; updatedAt: string }[]): { mappings: StoredMapping[]; settings: { name: string; value: string; updatedAt: string }[] } {
  const legacy = settings.find((s) => s.name === LEGACY_MAPPINGS_SETTING);
  if (!legacy) return { mappings: [], settings: [...settings] };
  const carried = carryMappingsSetting(legacy.value, legacy.updatedAt);
  return { mappings: carried.mappings, settings: carried.isWhole ? settings.filter((s) => s !== legacy) : [...settings] };
}
