/** Values from a fixed list (case sensitive, api-spec.md 2.4 and 2.5), and the closest one to suggest. */
import { closest } from 'fastest-levenshtein';

export interface EnumMatcher {
  readonly allowed: readonly string[];
  /** The allowed value itself (one shared string), or undefined. */
  match(text: string): string | undefined;
  /** The allowed value to suggest for a near miss: a case-only match first, else the nearest by edit distance. */
  suggest(text: string): { value: string; isCaseOnly: boolean } | undefined;
}

export function createEnumMatcher(allowed: readonly string[]): EnumMatcher {
  const exact = new Map(allowed.map((v) => [v, v]));
  const byLowerCase = new Map(allowed.map((v) => [v.toLowerCase(), v]));
  return {
    allowed,
    match: (text) => exact.get(text),
    suggest(text) {
      const caseOnly = byLowerCase.get(text.toLowerCase());
      if (caseOnly !== undefined) return { value: caseOnly, isCaseOnly: true };
      if (allowed.length === 0) return undefined;
      return { value: closest(text, allowed), isCaseOnly: false };
    },
  };
}
