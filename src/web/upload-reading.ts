/**
 * How an upload is read, kept beside it (reading.json): the profile chosen in the mapping step and the
 * cells corrected in the page. The checker, the verdict page and the submission all read it, so what is
 * sent is what the page showed.
 */
import { createHash } from 'node:crypto';
import type { ReadSettings } from '../validate/check-file.js';
import { BUILTIN_PROFILES } from '../mapping/builtin/index.js';
import { latestEdits, type CellEdit } from '../mapping/cell-edits.js';
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

/** The settings checkFile and runImport take for this upload: its profile or detection among the built-in and saved ones, its edits. */
export function readSettingsFor(reading: UploadReading, saved: readonly SavedMapping[]): ReadSettings {
  const known = [...BUILTIN_PROFILES, ...saved.map((m) => m.profile).filter((p) => !BUILTIN_PROFILES.some((b) => b.name === p.name))];
  return {
    mapping: reading.profile ? { kind: 'profile', profile: reading.profile } : { kind: 'auto', profiles: known },
    ...(reading.edits?.length && { edits: reading.edits }),
    audience: 'web',
  };
}

/** The cells corrected in the page (each counted once, however often it was corrected). */
export function countEditedCells(reading: UploadReading): number {
  return [...latestEdits(reading.edits ?? []).values()].reduce((sum, row) => sum + row.size, 0);
}

/**
 * The sha256 of the sheet as a submission reads it: the file's own when it is read as it came
 * (columns detected, no cell corrected); else that of the file's sha256, the profile chosen in the
 * page and the final value of each corrected cell, so that two submissions of one file read
 * differently never show the same hash.
 */
export function readingSha256(fileSha256: string, reading: UploadReading): string {
  const edits = [...latestEdits(reading.edits ?? [])].flatMap(([row, cells]) => [...cells].map(([col, edit]) => [row, col, edit.value] as const));
  if (!reading.profile && edits.length === 0) return fileSha256;
  edits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return createHash('sha256').update(JSON.stringify({ file: fileSha256, profile: reading.profile ?? null, cells: edits })).digest('hex');
}
