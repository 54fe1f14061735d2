/**
 * The mapping profiles saved for the team (from the web app's mapping step): detected on the next file
 * whose headers they fit, by the web app and the CLI alike, and named with --mapping. Kept beside the
 * ledger they belong with (mappings.json in the ledger's folder), written whole and renamed into place,
 * so a reader never sees half of it.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
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

const FILE = 'mappings.json';

const NO_STORE: MappingStore = {
  async list() {
    return [];
  },
  async save() {
    throw new UsageError('Mappings cannot be saved beside a ledger named by a URL: save the profile as a .json file and name it with --mapping.');
  },
};

/** The store of the ledger at `ledgerPath` (a file that need not exist yet). */
export function openMappingStore(ledgerPath: string): MappingStore {
  // A ledger named by a URL has no folder to keep a file in: no mapping is saved beside it.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ledgerPath)) return NO_STORE;
  const path = join(dirname(ledgerPath), FILE);
  const read = (): SavedMapping[] => {
    if (!existsSync(path)) return [];
    let stored: SavedMapping[];
    try {
      stored = JSON.parse(readFileSync(path, 'utf8')) as SavedMapping[];
    } catch {
      return [];
    }
    if (!Array.isArray(stored)) return [];
    // A profile edited by hand in the file and broken is left out rather than breaking every upload.
    return stored.flatMap((m) => {
      try {
        return [{ ...m, profile: parseProfile(m.profile, `saved mapping ${m.profile?.name ?? '?'}`) }];
      } catch {
        return [];
      }
    });
  };
  return {
    async list() {
      return read();
    },
    async save(mapping) {
      const others = read().filter((m) => m.profile.name !== mapping.profile.name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(`${path}.tmp`, JSON.stringify([...others, mapping], null, 2));
      renameSync(`${path}.tmp`, path);
    },
  };
}
