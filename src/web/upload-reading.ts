/**
 * How an upload is read, kept beside it (reading.json): the profile chosen in the mapping step and the
 * cells corrected in the page. The checker, the verdict page and the submission all read it, so what is
 * sent is what the page showed.
 */
import type { ReadSettings } from '../commands/check-file.js';
import { BUILTIN_PROFILES } from '../mapping/builtin/index.js';
import type { CellEdit } from '../mapping/cell-edits.js';
import type { Profile } from '../mapping/profile.js';
import type { SavedMapping } from '../mapping/mapping-store.js';
import type { WorkDir } from './work-dir.js';

export interface UploadReading {
  /** The profile the upload is read with (chosen in the mapping step); absent: detected. */
  profile?: Profile;
  edits?: CellEdit[];
}

export const READING_FILE = 'reading.json';

export function loadReading(workDir: WorkDir, uploadId: string): UploadReading {
  return workDir.readJson<UploadReading>('uploads', uploadId, READING_FILE) ?? {};
}

export function saveReading(workDir: WorkDir, uploadId: string, reading: UploadReading): void {
  workDir.writeJson('uploads', uploadId, READING_FILE, reading);
}

/** The settings checkFile and importFiles take for this upload: its profile or detection among the built-in and saved ones, its edits. */
export function readSettingsFor(reading: UploadReading, saved: readonly SavedMapping[]): ReadSettings {
  const known = [...BUILTIN_PROFILES, ...saved.map((m) => m.profile).filter((p) => !BUILTIN_PROFILES.some((b) => b.name === p.name))];
  return {
    mapping: reading.profile ? { kind: 'profile', profile: reading.profile } : { kind: 'auto', profiles: known },
    ...(reading.edits?.length && { edits: reading.edits }),
    audience: 'web',
  };
}
