/**
 * --mapping <name | file | none>: a built-in or saved profile by name, or a profile file. The only
 * place in src/mapping/ that reads a file; a file that cannot be read or used says which and why.
 */
import { statSync } from 'node:fs';
import { readTextFile } from '../read-text-file.js';
import { BUILTIN_PROFILES } from './builtin/index.js';
import type { MappingChoice } from './choose.js';
import { ProfileError, parseProfileText, type Profile } from './profile.js';

export function readProfileFile(path: string): Profile {
  const text = readTextFile(path, (reason) => new ProfileError(`Cannot read mapping profile ${path}: ${reason}.`));
  return parseProfileText(text, path);
}

/**
 * The choice --mapping names: `none`, a profile among `known` (built-in first, then saved ones) by name,
 * or a file. Undefined: detect among `known`.
 */
export function resolveMappingChoice(value: string | undefined, saved: readonly Profile[] = []): MappingChoice {
  const known = [...BUILTIN_PROFILES, ...saved.filter((p) => !BUILTIN_PROFILES.some((b) => b.name === p.name))];
  if (value === undefined) return { kind: 'auto', profiles: known };
  const name = value.trim();
  if (name.toLowerCase() === 'none') return { kind: 'none' };
  const byName = known.find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (byName !== undefined) return { kind: 'profile', profile: byName };
  if (isFile(name) || /\.json$/i.test(name)) return { kind: 'profile', profile: readProfileFile(name) };
  const names = known.map((p) => p.name).join(', ');
  throw new ProfileError(`--mapping ${name}: no profile of that name and no such file. Profiles: ${names} (order-batch mapping list), a profile file (.json), or none.`);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
