import { describe, expect, it } from 'vitest';
import { toCountryCode } from '../../src/orders/country-names.js';

describe('country names to ISO 3166-1 codes', () => {
  it.each([
    ['United States', 'US'],
    ['United States of America', 'US'],
    ['USA', 'US'],
    ['U.S.', 'US'],
    ['us', 'US'],
    ['United Kingdom', 'GB'],
    ['UK', 'GB'],
    ['Deutschland', 'DE'],
    ['Canada', 'CA'],
    ['DEU', 'DE'],
    ['États-Unis', 'US'],
    ['Etats-Unis', 'US'],
    ['etats unis', 'US'],
    ['EE.UU.', 'US'],
    ['U.K.', 'GB'],
    ["Côte d'Ivoire", 'CI'],
  ])('%s is %s', (name, code) => {
    expect(toCountryCode(name)).toBe(code);
  });

  it('leaves what is no country alone', () => {
    expect(toCountryCode('Narnia')).toBeUndefined();
    expect(toCountryCode('')).toBeUndefined();
  });
});
