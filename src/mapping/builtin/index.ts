/** The built-in profiles, for the exports staff have most often. */
import { parseProfile, type Profile } from '../profile.js';
import { AMAZON_PROFILE } from './amazon.js';
import { EBAY_PROFILE } from './ebay.js';
import { ETSY_PROFILE } from './etsy.js';
import { SHOPIFY_PROFILE } from './shopify.js';
import { WOOCOMMERCE_PROFILE } from './woocommerce.js';

/** Checked like any profile file, so a built-in can never be one that a user's copy of it could not be. */
export const BUILTIN_PROFILES: readonly Profile[] = [SHOPIFY_PROFILE, AMAZON_PROFILE, WOOCOMMERCE_PROFILE, EBAY_PROFILE, ETSY_PROFILE].map((p) => parseProfile(p, `built-in profile ${p.name}`));

export function findBuiltinProfile(name: string): Profile | undefined {
  const key = name.trim().toLowerCase();
  return BUILTIN_PROFILES.find((p) => p.name === key);
}
