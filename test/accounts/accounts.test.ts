/** Roles, names and passwords of the web app's accounts, and changes to them. */
import { describe, expect, it } from 'vitest';
import { changeAccount, type Actor } from '../../src/accounts/manage.js';
import { checkUserName } from '../../src/accounts/names.js';
import { checkPasswordRules, verifyPassword } from '../../src/accounts/passwords.js';
import { isAllowed } from '../../src/accounts/roles.js';
import { openLedger } from '../../src/ledger/index.js';

const admin: Actor = { name: 'root-admin', via: 'web', address: '10.0.0.9' };

describe('accounts', () => {
  it('gives each role what the one before it has, and more', () => {
    expect(['viewer', 'operator', 'admin'].map((r) => isAllowed(r as 'viewer', 'view'))).toEqual([true, true, true]);
    expect(['viewer', 'operator', 'admin'].map((r) => isAllowed(r as 'viewer', 'submit'))).toEqual([false, true, true]);
    expect(['viewer', 'operator', 'admin'].map((r) => isAllowed(r as 'viewer', 'manageUsers'))).toEqual([false, false, true]);
  });

  it('keeps names in lower case and refuses what cannot be one', () => {
    expect(checkUserName(' Maria.Rossi@Example.com ')).toEqual({ ok: true, name: 'maria.rossi@example.com' });
    for (const bad of ['', '-maria', 'ma ria', 'x'.repeat(65), 'maría']) expect(checkUserName(bad).ok).toBe(false);
  });

  it('asks for a password of 10 characters or more, without spaces around it', () => {
    expect(checkPasswordRules('correct horse')).toBeNull();
    expect(checkPasswordRules('short')).toMatch(/at least 10/);
    expect(checkPasswordRules(' correct horse')).toMatch(/space/);
    expect(checkPasswordRules('x'.repeat(257))).toMatch(/at most 256/);
  });

  it('verifies nothing against an unknown account or a damaged hash', async () => {
    expect(await verifyPassword(null, 'anything at all')).toBe(false);
    expect(await verifyPassword('not a hash', 'anything at all')).toBe(false);
  });

  it("changes accounts and records who did it, but an admin cannot lock out their own account from the page", async () => {
    const ledger = await openLedger(':memory:');
    try {
      expect(await changeAccount(ledger, admin, { kind: 'add', name: 'Li', role: 'viewer', password: 'long enough secret' })).toMatchObject({ ok: true, name: 'li' });
      const stored = await ledger.users.get('li');
      expect(await verifyPassword(stored!.passwordHash, 'long enough secret')).toBe(true);
      expect(await verifyPassword(stored!.passwordHash, 'long enough secreT')).toBe(false);
      expect(await changeAccount(ledger, admin, { kind: 'add', name: 'li', role: 'admin', password: 'long enough secret' })).toMatchObject({ ok: false, reason: 'exists' });
      expect(await changeAccount(ledger, admin, { kind: 'role', name: 'ghost', role: 'admin' })).toMatchObject({ ok: false, reason: 'missing' });
      const self = { ...admin, name: 'li' };
      expect(await changeAccount(ledger, self, { kind: 'disable', name: 'li' }, { refuseSelf: true })).toMatchObject({ ok: false, reason: 'self' });
      expect(await changeAccount(ledger, self, { kind: 'password', name: 'li', password: 'a fresh long one' }, { refuseSelf: true })).toMatchObject({ ok: true });
      const trail = await ledger.audit.list();
      expect(trail.map((e) => [e.actor, e.action, e.detail])).toEqual([
        ['li', 'user_password', 'li'],
        ['root-admin', 'user_add', 'li: role viewer'],
      ]);
    } finally {
      await ledger.close();
    }
  });
});
