/**
 * How a sheet is read: with the template's headers, or through a profile (forced with --mapping, or
 * detected from the headers when the template's do not fit). Pure: files are read by the caller.
 */
import { hasErrors } from '../issues/index.js';
import { mapHeaders, type HeaderMapping } from '../sheet/headers.js';
import { compileProfile, type CompiledMapping } from './compile.js';
import { detectProfile } from './detect.js';
import type { Profile } from './profile.js';

export type MappingChoice =
  /** Detect among these profiles when the template's headers do not fit (the default). */
  | { kind: 'auto'; profiles: readonly Profile[] }
  /** --mapping none: the template's headers only. */
  | { kind: 'none' }
  /** --mapping <name|file>: this profile, whatever the headers. */
  | { kind: 'profile'; profile: Profile };

/** How a file read through a profile was read (the JSON report's `mapping`, the text output's first line for the file). */
export interface FileMapping {
  profile: string;
  label: string;
  detected: boolean;
  /** "orders.csv: read as a Shopify orders export (...)". */
  description: string;
}

export type SheetReading =
  | { kind: 'template'; mapped: HeaderMapping; /** What detection saw but did not apply (a near miss, two matches). */ notices: string[] }
  | { kind: 'profile'; compiled: CompiledMapping; isDetected: boolean };

export function chooseReading(file: string, headers: readonly string[], headerRow: number, choice: MappingChoice): SheetReading {
  if (choice.kind === 'profile') return { kind: 'profile', compiled: compileProfile(choice.profile, headers), isDetected: false };
  const mapped = mapHeaders([...headers], headerRow);
  // A sheet in template form is read as one: detection is for the files whose columns do not fit.
  if (choice.kind === 'none' || !hasErrors(mapped.issues)) return { kind: 'template', mapped, notices: [] };
  const detection = detectProfile(headers, choice.profiles);
  switch (detection.kind) {
    case 'strong':
      return { kind: 'profile', compiled: compileProfile(detection.profile, headers), isDetected: true };
    case 'ambiguous': {
      const names = detection.profiles.map((p) => `${p.label} (--mapping ${p.name})`).join(' or ');
      return { kind: 'template', mapped, notices: [`${file} has every column of ${names}, so it was not read with either: say which with --mapping.`] };
    }
    case 'weak': {
      const missing = detection.missing.map((m) => `"${m}"`).join(', ');
      return {
        kind: 'template',
        mapped,
        notices: [`${file} looks like ${withArticle(detection.profile.label)} but lacks ${missing}, so it was not read as one. If it is one, read it with --mapping ${detection.profile.name} (the missing columns are then reported), or make a profile of your own: order-batch mapping suggest ${file}.`],
      };
    }
    case 'none':
      return { kind: 'template', mapped, notices: [] };
  }
}

/** "read as a Shopify orders export": the first thing said of a file read through a profile. */
export function describeReading(file: string, reading: Extract<SheetReading, { kind: 'profile' }>): string {
  const how = reading.isDetected ? 'detected from its columns' : 'chosen for this file';
  return `${file}: read as ${withArticle(reading.compiled.profile.label)} (mapping profile ${reading.compiled.profile.name}, ${how}).`;
}

/** "a Shopify orders export", "an Amazon order report". */
export function withArticle(label: string): string {
  return `${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label}`;
}
