/**
 * Accounts, sessions and the audit trail (src/ledger/team-types.ts), the same on every backend: each
 * `open()` is another instance of the web app on the same ledger.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import { useLedgers } from './team-support.js';

const HOUR = 3_600_000;

describe.each(BACKENDS)('the $name ledger', (backend) => {
  const ledgers = useLedgers(backend);

  describe('accounts', () => {
    it('adds an account once, keeps only its hash, and lists accounts by name', async () => {
      const ledger = await ledgers.open();
      expect(await ledger.users.add({ name: 'maria', role: 'operator', passwordHash: '$argon2id$one' })).toBe(true);
      expect(await ledger.users.add({ name: 'maria', role: 'admin', passwordHash: '$argon2id$two' })).toBe(false);
      await ledger.users.add({ name: 'ahmed', role: 'viewer', passwordHash: '$argon2id$three' });
      expect(await ledger.users.get('maria')).toMatchObject({ role: 'operator', isDisabled: false, passwordHash: '$argon2id$one', createdAt: '2031-05-06T07:08:09.000Z' });
      const listed = await ledger.users.list();
      expect(listed.map((u) => u.name)).toEqual(['ahmed', 'maria']);
      expect(listed[0]).not.toHaveProperty('passwordHash');
      expect(await ledger.users.get('nobody')).toBeNull();
    });

    it('changes a role, disables and enables, and says when there is no such account', async () => {
      const ledger = await ledgers.open();
      await ledger.users.add({ name: 'maria', role: 'viewer', passwordHash: 'h' });
      await ledger.users.add({ name: 'li', role: 'viewer', passwordHash: 'h' });
      ledgers.clock.advance(HOUR);
      expect(await ledger.users.update('maria', { role: 'admin' })).toBe(true);
      expect(await ledger.users.update('maria', { isDisabled: true })).toBe(true);
      expect(await ledger.users.get('maria')).toMatchObject({ role: 'admin', isDisabled: true, updatedAt: '2031-05-06T08:08:09.000Z' });
      expect(await ledger.users.countActive()).toBe(1);
      expect(await ledger.users.update('maria', { isDisabled: false })).toBe(true);
      expect(await ledger.users.countActive()).toBe(2);
      expect(await ledger.users.update('nobody', { role: 'admin' })).toBe(false);
      expect(await ledger.users.remove('li')).toBe(true);
      expect(await ledger.users.remove('li')).toBe(false);
    });

    it('keeps one account per e-mail address, found in any case, set, changed and removed', async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      expect(await web1.users.add({ name: 'maria', role: 'operator', passwordHash: 'h', email: 'Maria.Rossi@Example.com' })).toBe(true);
      expect(await web1.users.add({ name: 'mrossi', role: 'viewer', passwordHash: 'h', email: 'maria.rossi@example.COM' })).toBe(false);
      expect(await web1.users.get('mrossi')).toBeNull();
      expect(await web2.users.findByEmail('MARIA.ROSSI@example.com')).toMatchObject({ name: 'maria', email: 'maria.rossi@example.com' });
      await web1.users.add({ name: 'li', role: 'viewer', passwordHash: 'h' });
      expect((await web2.users.list()).map((u) => [u.name, u.email])).toEqual([['li', null], ['maria', 'maria.rossi@example.com']]);
      await expect(web1.users.update('li', { email: 'maria.rossi@example.com' })).rejects.toThrow();
      expect(await web1.users.update('maria', { email: 'm.rossi@example.com' })).toBe(true);
      expect(await web1.users.update('li', { email: 'Maria.Rossi@example.com' })).toBe(true);
      expect(await web2.users.findByEmail('maria.rossi@example.com')).toMatchObject({ name: 'li' });
      expect(await web1.users.update('li', { email: null })).toBe(true);
      expect(await web2.users.findByEmail('maria.rossi@example.com')).toBeNull();
    });

    it("ends an account's sessions on every instance when it is disabled, removed or given a new password", async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      for (const name of ['a', 'b', 'c', 'd']) await web1.users.add({ name, role: 'operator', passwordHash: 'h' });
      for (const name of ['a', 'b', 'c', 'd']) await web1.sessions.save(`session-of-${name}`, { userName: name, data: {}, address: '10.0.0.7' });
      await web2.users.update('a', { isDisabled: true });
      await web2.users.remove('b');
      await web2.users.update('c', { passwordHash: 'h2' });
      await web2.users.update('d', { role: 'viewer' });
      for (const name of ['a', 'b', 'c']) expect(await web1.sessions.load(`session-of-${name}`, 8 * HOUR)).toBeNull();
      expect(await web1.sessions.load('session-of-d', 8 * HOUR)).toMatchObject({ userName: 'd', role: 'viewer', address: '10.0.0.7' });
    });
  });

  describe('sessions', () => {
    it('keeps a session while it is used, and ends it after the idle time on the ledger clock', async () => {
      const ledger = await ledgers.open();
      await ledger.users.add({ name: 'maria', role: 'operator', passwordHash: 'h' });
      await ledger.sessions.save('s-1', { userName: 'maria', data: { note: 1 }, address: '127.0.0.1' });
      ledgers.clock.advance(7 * HOUR);
      expect(await ledger.sessions.load('s-1', 8 * HOUR)).toMatchObject({ userName: 'maria', data: { note: 1 }, lastSeenAt: '2031-05-06T14:08:09.000Z' });
      ledgers.clock.advance(7 * HOUR);
      expect(await ledger.sessions.load('s-1', 8 * HOUR)).not.toBeNull();
      ledgers.clock.advance(8 * HOUR + 1);
      expect(await ledger.sessions.load('s-1', 8 * HOUR)).toBeNull();
      // Gone for good: an earlier clock does not bring it back.
      expect(await ledger.sessions.load('s-1', 100 * HOUR)).toBeNull();
    });

    it('notes a sign of life at most once a minute', async () => {
      const ledger = await ledgers.open();
      await ledger.sessions.save('s-1', { userName: null, data: {}, address: null });
      ledgers.clock.advance(30_000);
      expect((await ledger.sessions.load('s-1', HOUR))!.lastSeenAt).toBe('2031-05-06T07:08:09.000Z');
      ledgers.clock.advance(30_000);
      expect((await ledger.sessions.load('s-1', HOUR))!.lastSeenAt).toBe('2031-05-06T07:09:09.000Z');
    });

    it('finds a session only by its own id, and removes idle ones in a sweep', async () => {
      const ledger = await ledgers.open();
      await ledger.sessions.save('s-1', { userName: null, data: {}, address: null });
      ledgers.clock.advance(2 * HOUR);
      await ledger.sessions.save('s-2', { userName: null, data: {}, address: null });
      expect(await ledger.sessions.load('s-3', HOUR)).toBeNull();
      expect(await ledger.sessions.sweep(HOUR)).toBe(1);
      expect(await ledger.sessions.load('s-2', HOUR)).not.toBeNull();
      await ledger.sessions.remove('s-2');
      expect(await ledger.sessions.load('s-2', HOUR)).toBeNull();
    });
  });

  describe('attempt counters', () => {
    it('counts attempts in a window shared by every instance, and starts again once it has passed', async () => {
      const [web1, web2] = [await ledgers.open(), await ledgers.open()];
      expect(await web1.attempts.count('account:maria', HOUR)).toEqual({ count: 1, windowStartedAt: '2031-05-06T07:08:09.000Z' });
      ledgers.clock.advance(30 * 60_000);
      expect(await web2.attempts.count('account:maria', HOUR)).toMatchObject({ count: 2, windowStartedAt: '2031-05-06T07:08:09.000Z' });
      expect(await web1.attempts.peek('account:maria', HOUR)).toMatchObject({ count: 2 });
      expect(await web1.attempts.peek('account:li', HOUR)).toMatchObject({ count: 0 });
      ledgers.clock.advance(30 * 60_000);
      expect(await web1.attempts.peek('account:maria', HOUR)).toMatchObject({ count: 0 });
      expect(await web2.attempts.count('account:maria', HOUR)).toEqual({ count: 1, windowStartedAt: '2031-05-06T08:08:09.000Z' });
      ledgers.clock.advance(2 * HOUR);
      await web1.attempts.sweep(HOUR);
      expect(await web1.attempts.peek('account:maria', 10 * HOUR)).toMatchObject({ count: 0 });
    });
  });

  describe('the audit trail', () => {
    it('records who did what, when and from where, and reads it newest first, filtered and in pages', async () => {
      const [web, cli] = [await ledgers.open(), await ledgers.open()];
      await web.audit.record({ actor: 'maria', via: 'web', address: '10.0.0.7', action: 'check', fileName: 'orders.csv', fileSha256: 'ab12', counts: { orders: 3, valid: 2 } });
      ledgers.clock.advance(HOUR);
      await cli.audit.record({ actor: 'cron', via: 'cli', address: 'batch-host', action: 'import', fileName: 'night.xlsx', counts: { accepted: 40 }, ref: 'run-1' });
      ledgers.clock.advance(HOUR);
      const last = await web.audit.record({ actor: 'maria', via: 'web', address: '10.0.0.7', action: 'user_role', detail: 'li: viewer -> operator' });
      expect(last).toMatchObject({ at: '2031-05-06T09:08:09.000Z', actor: 'maria', action: 'user_role', fileName: null, counts: null, detail: 'li: viewer -> operator' });

      const all = await cli.audit.list();
      expect(all.map((e) => e.action)).toEqual(['user_role', 'import', 'check']);
      expect(all[2]).toMatchObject({ via: 'web', address: '10.0.0.7', fileName: 'orders.csv', fileSha256: 'ab12', counts: { orders: 3, valid: 2 } });
      expect((await web.audit.list({ actor: 'maria' })).map((e) => e.action)).toEqual(['user_role', 'check']);
      expect((await web.audit.list({ since: '2031-05-06T08:00:00Z', until: '2031-05-06T09:00:00Z' })).map((e) => e.action)).toEqual(['import']);
      const page1 = await web.audit.list({ limit: 2 });
      expect((await web.audit.list({ limit: 2, beforeSeq: page1[1]!.seq })).map((e) => e.action)).toEqual(['check']);
      expect(await web.audit.listActors()).toEqual(['cron', 'maria']);
    });
  });
});
