/**
 * Which profile a header row is: one whose every needed column is there is a strong match and is read
 * with; a near miss or two strong matches are never applied silently, only said.
 */
import { normalizeHeader } from '../sheet/columns.js';
import { columnsOfRule, isOptionalRule, type Profile, isFirstRule } from './profile.js';

export type Detection =
  | { kind: 'strong'; profile: Profile }
  /** Several profiles match every needed column: which one is meant is the user's call. */
  | { kind: 'ambiguous'; profiles: Profile[] }
  /** Most needed columns are there, not all: said, with what is missing, never applied. */
  | { kind: 'weak'; profile: Profile; missing: string[] }
  | { kind: 'none' };

/** A near miss: at least this share of the needed columns. */
const WEAK_SHARE = 0.6;

/** The columns a profile needs: each non-optional rule's (one of a `first` rule's is enough). */
function neededGroups(profile: Profile): string[][] {
  const groups: string[][] = [];
  for (const rule of Object.values(profile.fields)) {
    if (rule === undefined || isOptionalRule(rule)) continue;
    if (isFirstRule(rule)) groups.push(rule.first);
    else for (const column of columnsOfRule(rule)) groups.push([column]);
  }
  return groups;
}

export function scoreProfile(profile: Profile, headers: readonly string[]): { needed: number; found: number; missing: string[] } {
  const keys = new Set(headers.map(normalizeHeader));
  const groups = neededGroups(profile);
  const seen = new Set<string>();
  let found = 0;
  const missing: string[] = [];
  for (const group of groups) {
    const key = group.map(normalizeHeader).join('|');
    if (seen.has(key)) continue;
    seen.add(key);
    if (group.some((c) => keys.has(normalizeHeader(c)))) found++;
    else missing.push(group[0]!);
  }
  return { needed: seen.size, found, missing };
}

export function detectProfile(headers: readonly string[], profiles: readonly Profile[]): Detection {
  const scored = profiles.map((profile) => ({ profile, ...scoreProfile(profile, headers) })).filter((s) => s.needed > 0);
  const strong = scored.filter((s) => s.missing.length === 0);
  if (strong.length === 1) return { kind: 'strong', profile: strong[0]!.profile };
  if (strong.length > 1) {
    // The one reading the most columns is the more specific one, when there is one.
    strong.sort((a, b) => b.needed - a.needed);
    if (strong[0]!.needed > strong[1]!.needed) return { kind: 'strong', profile: strong[0]!.profile };
    return { kind: 'ambiguous', profiles: strong.filter((s) => s.needed === strong[0]!.needed).map((s) => s.profile) };
  }
  const near = scored.filter((s) => s.found / s.needed >= WEAK_SHARE).sort((a, b) => b.found / b.needed - a.found / a.needed);
  if (near.length > 0) return { kind: 'weak', profile: near[0]!.profile, missing: near[0]!.missing };
  return { kind: 'none' };
}
