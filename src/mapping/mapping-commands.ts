/**
 * `order-batch mapping suggest <file>` and `mapping list`: a draft profile from a sheet's headers (and a
 * few of its values), and the profiles a run can name. Return values; the CLI prints them.
 */
import { basename, extname } from 'node:path';
import { BUILTIN_PROFILES } from './builtin/index.js';
import { formatProfile, type Profile } from './profile.js';
import { columnsNamed, suggestProfile, type Draft } from './suggest.js';
import { isBlankCell, toHeaderText } from '../sheet/row-source.js';
import { openSheet } from '../sheet/read-sheet.js';
import type { Ledger } from '../ledger/index.js';

/** Rows looked at for sample values: enough to tell an order number from an item name. */
const SAMPLE_ROWS = 200;
const SAMPLES_PER_COLUMN = 5;

export interface SuggestResult {
  draft: Draft;
  /** The draft as the JSON file people edit. */
  json: string;
  /** What a person reads first: each guess, how sure it is, what is missing. */
  summary: string[];
}

export async function suggestMapping(file: string, options: { sheet?: string; saved?: readonly Profile[] } = {}): Promise<SuggestResult> {
  const sheet = await openSheet(file, options.sheet === undefined ? {} : { sheet: options.sheet });
  const samples: string[][] = sheet.headers.map(() => []);
  const rows: string[][] = [];
  try {
    let seen = 0;
    for await (const batch of sheet.rows) {
      for (const row of batch) {
        rows.push(row.cells.map((cell) => (isBlankCell(cell) ? '' : toHeaderText(cell))));
        row.cells.forEach((cell, i) => {
          const list = samples[i];
          if (list === undefined || isBlankCell(cell) || list.length >= SAMPLES_PER_COLUMN) return;
          const text = toHeaderText(cell);
          if (!list.includes(text)) list.push(text);
        });
        if (++seen >= SAMPLE_ROWS) break;
      }
      if (seen >= SAMPLE_ROWS) break;
    }
  } finally {
    await sheet.rows[Symbol.asyncIterator]().return?.();
  }
  const name = slug(basename(file, extname(file)));
  const draft = suggestProfile({ headers: sheet.headers, samples, known: [...BUILTIN_PROFILES, ...(options.saved ?? [])], name, rows });
  return { draft, json: formatProfile(draft.profile), summary: summarize(file, sheet.headers.length, draft) };
}

function summarize(file: string, columns: number, draft: Draft): string[] {
  if (draft.matched) {
    return [`${file} has every column the ${draft.matched.label} profile (${draft.matched.name}) reads: validate and import read it with that profile without any option. The profile follows, to copy and adapt.`];
  }
  const lines = [`${file}: ${columns} columns. A draft mapping profile follows: save it as a .json file, check each guess, fill in what is missing, then use --mapping <file>.`];
  const width = Math.max(...draft.guesses.map((g) => g.field.length), 10);
  for (const g of draft.guesses) {
    if (g.confidence === 'ambiguous') lines.push(`  ${g.field.padEnd(width)} <- ${columnsNamed(g, 'or')}? (ambiguous: both fit as well; the draft leaves it out, choose one)`);
    else lines.push(`  ${g.field.padEnd(width)} <- "${g.header}" (${g.confidence}${g.confidence === 'weak' ? ': check it' : ''})`);
  }
  if (draft.missing.length > 0) lines.push(`Still missing (every order needs them): ${draft.missing.join(', ')}.`);
  return lines;
}

function slug(text: string): string {
  const s = text.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return s === '' ? 'draft' : s;
}

export interface ListedProfile {
  name: string;
  label: string;
  origin: 'built-in' | 'saved';
}

export function listMappings(saved: readonly Profile[] = []): ListedProfile[] {
  return [
    ...BUILTIN_PROFILES.map((p) => ({ name: p.name, label: p.label, origin: 'built-in' as const })),
    ...saved.map((p) => ({ name: p.name, label: p.label, origin: 'saved' as const })),
  ];
}

/**
 * Removes the mapping saved under `name` from the ledger, recorded in the audit trail under the
 * operating-system user; false when the ledger holds none of that name.
 */
export async function removeSavedMapping(ledger: Ledger, name: string): Promise<boolean> {
  const { osActor } = await import('../accounts/os-user.js');
  const isRemoved = await ledger.mappings.remove(name);
  if (isRemoved) {
    const { name: actor, via, address } = osActor();
    await ledger.audit.record({ actor, via, address, action: 'mapping_remove', detail: name });
  }
  return isRemoved;
}

/**
 * Stores a profile (readSavableProfile) in the ledger as a team mapping (as the web app's mapping step
 * saves one), recorded in the audit trail under the operating-system user. Returns the name saved and
 * whether it replaced a mapping of that name.
 */
export async function saveMapping(ledger: Ledger, profile: Profile): Promise<{ name: string; isReplaced: boolean }> {
  const { osActor } = await import('../accounts/os-user.js');
  const isReplaced = (await ledger.mappings.list()).some((m) => m.name === profile.name);
  const { name: actor, via, address } = osActor();
  await ledger.mappings.save({ name: profile.name, profile: JSON.stringify(profile), savedBy: actor });
  await ledger.audit.record({ actor, via, address, action: 'mapping_save', detail: profile.name });
  return { name: profile.name, isReplaced };
}

/** An edited profile file, under its own name or `name`, checked like any profile file before a ledger is opened or created for it. */
export async function readSavableProfile(file: string, name?: string): Promise<Profile> {
  const { readProfileFile } = await import('./profile-file.js');
  const { findBuiltinProfile } = await import('./builtin/index.js');
  const { ProfileError, parseProfile } = await import('./profile.js');
  const read = readProfileFile(file);
  const profile = name === undefined ? read : parseProfile({ ...read, name: name.trim() }, `${file} (saved as ${JSON.stringify(name)})`);
  if (findBuiltinProfile(profile.name) !== undefined) {
    throw new ProfileError(`${profile.name} is the name of a built-in profile: save ${file} under another name (--name).`);
  }
  return profile;
}
