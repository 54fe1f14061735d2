/**
 * Which account a company login opens (src/sso/sso-account.ts), on both ledgers: the one with the
 * verified e-mail whatever its name, the one named by the e-mail (which then records it), or one made
 * at the first login with the e-mail.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/ledger/index.js';
import { openSsoAccount } from '../../src/sso/sso-account.js';
import { BACKENDS } from '../ledger/backends.js';
import { useLedgers } from '../ledger/team-support.js';

const SETTINGS = { groupRoles: { leads: 'operator' as const }, defaultRole: 'viewer' as const };

describe.each(BACKENDS)('a company login on the $name ledger', (backend) => {
  const ledgers = useLedgers(backend);
  const open = async (email: string, groups: string[] = [], settings: Parameters<typeof openSsoAccount>[2] = SETTINGS) => {
    const ledger = await ledgers.open();
    const recorded: Partial<AuditEvent>[] = [];
    const opened = await openSsoAccount(ledger.users, { email, groups }, settings, async (event) => void recorded.push(event));
    return { ledger, opened, recorded };
  };

  it('opens the account whose e-mail it is, whatever the account is named, and raises its role by its groups', async () => {
    const ledger = await ledgers.open();
    await ledger.users.add({ name: 'mrossi', role: 'viewer', passwordHash: 'h', email: 'Maria.Rossi@Example.com' });
    const { opened, recorded } = await open('maria.rossi@example.com', ['leads']);
    expect(opened).toMatchObject({ ok: true, user: { name: 'mrossi', role: 'operator' } });
    expect(recorded).toEqual([expect.objectContaining({ action: 'user_role', actor: 'mrossi' })]);
    expect(await ledger.users.get('maria.rossi@example.com')).toBeNull();
  });

  it('opens the account named by the e-mail, which then records the e-mail', async () => {
    const ledger = await ledgers.open();
    await ledger.users.add({ name: 'mia@example.com', role: 'operator', passwordHash: 'h' });
    const { opened, recorded } = await open('mia@example.com');
    expect(opened).toMatchObject({ ok: true, user: { name: 'mia@example.com', role: 'operator', email: 'mia@example.com' } });
    expect(recorded).toEqual([expect.objectContaining({ action: 'user_email' })]);
    expect(await ledger.users.findByEmail('MIA@example.com')).toMatchObject({ name: 'mia@example.com' });
  });

  it('refuses the account named by the e-mail when that account has another e-mail address', async () => {
    const ledger = await ledgers.open();
    await ledger.users.add({ name: 'mia@example.com', role: 'operator', passwordHash: 'h', email: 'someone.else@example.com' });
    expect((await open('mia@example.com')).opened).toMatchObject({ ok: false, message: expect.stringMatching(/has another e-mail address/) });
  });

  it('makes an account at a first login with its e-mail, or refuses one when new people are not let in', async () => {
    const { ledger, opened, recorded } = await open('Otto@Example.com'.toLowerCase());
    expect(opened).toMatchObject({ ok: true, user: { name: 'otto@example.com', role: 'viewer', email: 'otto@example.com' } });
    expect(recorded).toEqual([expect.objectContaining({ action: 'user_add' })]);
    expect((await open('nova@example.com', [], { groupRoles: {}, defaultRole: 'none' })).opened).toMatchObject({ ok: false });
    expect(await ledger.users.findByEmail('nova@example.com')).toBeNull();
  });

  it('refuses a disabled account', async () => {
    const ledger = await ledgers.open();
    await ledger.users.add({ name: 'li', role: 'viewer', passwordHash: 'h', email: 'li@example.com' });
    await ledger.users.update('li', { isDisabled: true });
    expect((await open('li@example.com')).opened).toMatchObject({ ok: false, why: 'account disabled' });
  });
});
