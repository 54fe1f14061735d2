import { describe, expect, it } from 'vitest';
import { newAccountNameOf, readSsoIdentity, resolveSsoRole } from '../../src/sso/sso-roles.js';

describe('who a company login is', () => {
  it('takes the verified e-mail, in lower case, with its groups', () => {
    expect(readSsoIdentity({ email: 'Mia@Example.com', email_verified: true, groups: ['leads', 7] })).toEqual({ ok: true, email: 'mia@example.com', groups: ['leads'] });
    expect(readSsoIdentity({ email: 'not an address', email_verified: true })).toMatchObject({ ok: false, reason: expect.stringMatching(/not an e-mail address/) });
  });

  it('names a new account by the e-mail when it can be an account name', () => {
    expect(newAccountNameOf('mia@example.com')).toBe('mia@example.com');
    expect(newAccountNameOf('mia+orders@example.com')).toBeNull();
  });

  it('refuses an e-mail the provider has not verified, or none', () => {
    expect(readSsoIdentity({ email: 'mia@example.com', email_verified: false })).toMatchObject({ ok: false, reason: expect.stringMatching(/not verified/) });
    expect(readSsoIdentity({ email: 'mia@example.com' })).toMatchObject({ ok: false });
    expect(readSsoIdentity({ sub: 'x' })).toMatchObject({ ok: false, reason: expect.stringMatching(/no e-mail/) });
  });

  it('gives the highest role the groups map to', () => {
    expect(resolveSsoRole(['staff', 'leads'], { staff: 'viewer', leads: 'operator' }, 'viewer')).toBe('operator');
    expect(resolveSsoRole(['leads', 'staff'], { staff: 'viewer', leads: 'operator' }, 'none')).toBe('operator');
  });

  it('falls back to the default role, or refuses with none', () => {
    expect(resolveSsoRole(['other'], { leads: 'operator' }, 'viewer')).toBe('viewer');
    expect(resolveSsoRole([], {}, 'operator')).toBe('operator');
    expect(resolveSsoRole(['other'], { leads: 'operator' }, 'none')).toBeNull();
  });
});
