/** A profile is a JSON file people edit: a bad one is refused whole, naming the file and the JSON path. */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES } from '../../src/mapping/builtin/index.js';
import { formatProfile, parseProfile, parseProfileText, ProfileError } from '../../src/mapping/profile.js';
import { resolveMappingChoice } from '../../src/mapping/profile-file.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('profile');
const base = { name: 'mine', label: 'My export', fields: { customerOrderId: { column: 'Order' } } };
const refused = (json: unknown) => {
  try {
    parseProfile(json, 'mine.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ProfileError);
    return (error as Error).message;
  }
  throw new Error('the profile was accepted');
};

describe('a bad profile', () => {
  it('names the file and the JSON path of an unknown field', () => {
    expect(refused({ ...base, fields: { customerOrderID: { column: 'Order' } } })).toBe(
      'Mapping profile mine.json is not valid: fields: "customerOrderID" is not an order field (the fields are the template\'s column names, e.g. customerOrderId).',
    );
  });

  it('says what a rule may be', () => {
    expect(refused({ ...base, fields: { city: { colum: 'Town' } } })).toContain('fields.city: a rule is one of {"column": ...}, {"join": [...]}');
  });

  it('refuses a value map that is not text, an empty column name and a bad name, each at its path', () => {
    const message = refused({ name: 'my profile', label: 'x', fields: { carrierId: { column: ' ', values: { Standard: 3 } } } });
    expect(message).toContain('name: use letters, digits, - and _');
    expect(message).toContain('fields.carrierId');
  });

  it('refuses a sum or a per-unit amount on a field that is no amount, and totals mapped while computed', () => {
    expect(refused({ ...base, fields: { city: { column: 'Town', sum: true } } })).toContain('fields.city: perUnit, minus and sum are for amounts');
    expect(refused({ ...base, totals: 'computed', fields: { grandTotal: { column: 'Total' } } })).toContain('fields.grandTotal: totals is "computed"');
  });

  it('is refused as JSON first, with the parser\'s words', () => {
    expect(() => parseProfileText('{ "name": ', 'broken.json')).toThrow(/^Mapping profile broken.json is not valid JSON: /);
  });

  it('named with --mapping but neither a profile nor a file says what can be named', () => {
    expect(() => resolveMappingChoice('shopfy')).toThrow('--mapping shopfy: no profile of that name and no such file. Profiles: shopify, amazon, woocommerce');
    expect(() => resolveMappingChoice(at('missing.json'))).toThrow(/Cannot read mapping profile .*missing\.json: no such file or folder/);
  });
});

describe('a good profile', () => {
  it('round-trips through its JSON form, and a file is read by --mapping', () => {
    for (const profile of BUILTIN_PROFILES) expect(parseProfileText(formatProfile(profile), 'copy')).toEqual(profile);
    const file = at('mine.json');
    writeFileSync(file, `\ufeff${formatProfile(parseProfile(base, 'base'))}`);
    expect(resolveMappingChoice(file)).toEqual({ kind: 'profile', profile: base });
    expect(resolveMappingChoice('none')).toEqual({ kind: 'none' });
    expect(resolveMappingChoice('Shopify')).toMatchObject({ kind: 'profile', profile: { name: 'shopify' } });
  });
});
