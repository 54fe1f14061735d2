/**
 * Country names and common forms (`United States`, `USA`, `U.S.`, `Deutschland`, `États-Unis`, `EE.UU.`) to ISO 3166-1 alpha-2
 * codes, through i18n-iso-countries: its names and aliases in the languages exports are written in.
 */
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';

const require = createRequire(import.meta.url);
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'] as const;
for (const lang of LANGUAGES) countries.registerLocale(require(`i18n-iso-countries/langs/${lang}.json`) as countries.LocaleData);

/** Names already looked up (a file names a few countries on many rows); bounded, so odd values cannot grow it forever. */
const known = new Map<string, string | undefined>();
const KNOWN_LIMIT = 10_000;

/** The alpha-2 code a country's name, alias, alpha-2 or alpha-3 code stands for; undefined when none does. */
export function toCountryCode(text: string): string | undefined {
  if (known.has(text)) return known.get(text);
  if (known.size >= KNOWN_LIMIT) known.clear();
  const code = lookUp(text);
  known.set(text, code);
  return code;
}

function lookUp(text: string): string | undefined {
  const name = text.trim();
  if (name === '') return undefined;
  if (/^[A-Za-z]{2}$/.test(name) && countries.isValid(name.toUpperCase())) return name.toUpperCase();
  if (/^[A-Za-z]{3}$/.test(name)) {
    const code = countries.alpha3ToAlpha2(name.toUpperCase());
    if (code !== undefined) return code;
  }
  for (const lang of LANGUAGES) {
    const code = countries.getAlpha2Code(name, lang);
    if (code !== undefined) return code;
  }
  const code = byLooseName().get(looseKey(name));
  return code === null ? undefined : code;
}

/** `États-Unis`, `Etats Unis` and `etats-unis` alike: no accents, case, spaces or punctuation. */
function looseKey(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Short forms the library does not list, as exports write them. */
const SHORT_FORMS: Record<string, string> = { us: 'US', usa: 'US', etatsunis: 'US', eeuu: 'US', eua: 'US', statiuniti: 'US', uk: 'GB', gb: 'GB', rfa: 'DE', brd: 'DE', uae: 'AE' };

let looseNames: Map<string, string | null> | undefined;

/** Every name of every language, by loose key; null where two countries share one (never guessed). */
function byLooseName(): Map<string, string | null> {
  if (looseNames !== undefined) return looseNames;
  const map = new Map<string, string | null>();
  for (const lang of LANGUAGES) {
    for (const [code, names] of Object.entries(countries.getNames(lang, { select: 'all' }))) {
      for (const n of names) {
        const key = looseKey(n);
        const earlier = map.get(key);
        map.set(key, earlier === undefined || earlier === code ? code : null);
      }
    }
  }
  for (const [key, code] of Object.entries(SHORT_FORMS)) map.set(key, code);
  looseNames = map;
  return map;
}
