/**
 * Country names and common forms (`United States`, `USA`, `U.S.`, `Deutschland`) to ISO 3166-1 alpha-2
 * codes, through i18n-iso-countries: its names and aliases in the languages exports are written in.
 */
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';

const require = createRequire(import.meta.url);
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'] as const;
for (const lang of LANGUAGES) countries.registerLocale(require(`i18n-iso-countries/langs/${lang}.json`) as countries.LocaleData);

/** The alpha-2 code a country's name, alias, alpha-2 or alpha-3 code stands for; undefined when none does. */
export function toCountryCode(text: string): string | undefined {
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
  return undefined;
}
