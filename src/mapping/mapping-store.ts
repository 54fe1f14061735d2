/**
 * The mapping profiles saved for the team (from the web app's mapping step), kept in the ledger's
 * mappings table: whoever shares the ledger shares them (a PostgreSQL ledger: every host), and the web
 * app and the CLI alike detect them on the next file whose headers they fit, or name them with --mapping.
 * One row per name: a save touches its own name only, so two people saving at once both keep theirs.
 */
import type { Ledger } from '../ledger/index.js';
import { parseProfile, type Profile } from './profile.js';

export interface SavedMapping {
  profile: Profile;
  savedBy: string;
  /** ISO instant, on the ledger's clock. */
  savedAt: string;
}

export interface MappingStore {
  /** In name order. */
  list(): Promise<SavedMapping[]>;
  /** Saves under the profile's name, replacing one of that name (the last save wins). */
  save(mapping: { profile: Profile; savedBy: string }): Promise<SavedMapping>;
  /** False when no mapping of that name was saved. */
  remove(name: string): Promise<boolean>;
}

export interface LedgerAccess {
  /** Reads the ledger; undefined when there is none yet (nothing is saved in a ledger not created). */
  read<T>(read: (ledger: Ledger) => Promise<T>): Promise<T | undefined>;
  /** Writes to the ledger, creating it when need be. */
  write<T>(write: (ledger: Ledger) => Promise<T>): Promise<T>;
}

export function createMappingStore(access: LedgerAccess): MappingStore {
  return {
    async list() {
      return (await access.read(readMappings)) ?? [];
    },
    async save({ profile, savedBy }) {
      const stored = await access.write((ledger) => ledger.mappings.save({ name: profile.name, profile: JSON.stringify(profile), savedBy }));
      return { profile, savedBy: stored.savedBy, savedAt: stored.savedAt };
    },
    async remove(name) {
      return (await access.read((ledger) => ledger.mappings.remove(name))) ?? false;
    },
  };
}

async function readMappings(ledger: Ledger): Promise<SavedMapping[]> {
  // One that no longer reads as a profile (written by another version) is left out rather than breaking every file.
  return (await ledger.mappings.list()).flatMap((m) => {
    try {
      return [{ profile: parseProfile(JSON.parse(m.profile), `saved mapping ${m.name}`), savedBy: m.savedBy, savedAt: m.savedAt }];
    } catch {
      return [];
    }
  });
}
