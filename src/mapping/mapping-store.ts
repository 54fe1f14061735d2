/**
 * The mapping profiles saved for the team (from the web app's mapping step), kept in the ledger through
 * its settings: whoever shares the ledger shares them (a PostgreSQL ledger: every host), and the web app
 * and the CLI alike detect them on the next file whose headers they fit, or name them with --mapping.
 * One setting holds them all, read again just before each save, so a save keeps the others.
 */
import type { Ledger } from '../ledger/types.js';
import { parseProfile, type Profile } from './profile.js';

export interface SavedMapping {
  profile: Profile;
  savedBy: string;
  /** ISO instant. */
  savedAt: string;
}

export interface MappingStore {
  list(): Promise<SavedMapping[]>;
  /** Saves under the profile's name, replacing one of that name. */
  save(mapping: SavedMapping): Promise<void>;
}

/** The ledger setting that holds the saved mappings, as a JSON list. */
export const MAPPINGS_SETTING = 'mappings';

export interface LedgerAccess {
  /** Reads the ledger; undefined when there is none yet (nothing is saved in a ledger not created). */
  read<T>(read: (ledger: Ledger) => Promise<T>): Promise<T | undefined>;
  /** Writes to the ledger, creating it when need be. */
  write(write: (ledger: Ledger) => Promise<void>): Promise<void>;
}

export function createMappingStore(access: LedgerAccess): MappingStore {
  return {
    async list() {
      return (await access.read(readMappings)) ?? [];
    },
    async save(mapping) {
      await access.write(async (ledger) => {
        const others = (await readMappings(ledger)).filter((m) => m.profile.name !== mapping.profile.name);
        await ledger.setSetting(MAPPINGS_SETTING, JSON.stringify([...others, mapping]));
      });
    },
  };
}

async function readMappings(ledger: Ledger): Promise<SavedMapping[]> {
  const text = await ledger.getSetting(MAPPINGS_SETTING);
  if (text === null) return [];
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(stored)) return [];
  // One that no longer reads as a profile (written by another version) is left out rather than breaking every file.
  return stored.flatMap((m: SavedMapping) => {
    try {
      return [{ ...m, profile: parseProfile(m.profile, `saved mapping ${String(m.profile?.name ?? '?')}`) }];
    } catch {
      return [];
    }
  });
}
