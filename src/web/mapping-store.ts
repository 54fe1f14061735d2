/**
 * The mapping profiles saved from the web app's mapping step, for the whole team: applied (and said) on
 * the next upload whose headers they fit. Kept in one JSON file in the web app's work folder, written
 * whole and renamed into place, so a reader never sees half of it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProfile, type Profile } from '../mapping/profile.js';

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

export function createFileMappingStore(root: string): MappingStore {
  const path = join(root, FILE);
  const read = (): SavedMapping[] => {
    if (!existsSync(path)) return [];
    const stored = JSON.parse(readFileSync(path, 'utf8')) as SavedMapping[];
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
      writeFileSync(`${path}.tmp`, JSON.stringify([...others, mapping], null, 2));
      renameSync(`${path}.tmp`, path);
    },
  };
}
