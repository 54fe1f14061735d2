/**
 * Saved column mappings, one row per name, on each backend: saves of different names at once all
 * survive (each is its own statement, not a rewrite of one shared list), the last save of one name
 * wins, and a ledger from before the table keeps every mapping its setting held.
 */
import { describe, expect, it } from 'vitest';
import type { Ledger, LedgerOptions } from '../../src/ledger/types.js';
import { createMappingStore, type MappingStore } from '../../src/mapping/mapping-store.js';
import { parseProfile } from '../../src/mapping/profile.js';
import { BACKENDS } from './backends.js';
import { useLedgers } from './team-support.js';

const profile = (name: string, column: string) => parseProfile({ name, label: `${name} export`, fields: { customerOrderId: { column } } }, name);
const columnOf = (p: { fields: Record<string, unknown> }) => (p.fields.customerOrderId as { column: string }).column;

describe.each(BACKENDS)('the saved mappings of the $name ledger', (backend) => {
  const ledgers = useLedgers(backend);
  const open = (options?: LedgerOptions) => ledgers.open(options);
  /** The store as one person's process has it: its own connection to the ledger. */
  const storeOn = (ledger: Ledger): MappingStore => createMappingStore({ read: (read) => read(ledger), write: (write) => write(ledger) });

  it('keeps every mapping when several people save different names at the same moment', async () => {
    const names = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'wayne'];
    const stores = await Promise.all(names.map(async () => storeOn(await open())));
    await Promise.all(names.map((name, i) => stores[i]!.save({ profile: profile(name, `Ref ${i}`), savedBy: `person-${i}` })));
    const saved = await storeOn(await open()).list();
    expect(saved.map((m) => [m.profile.name, columnOf(m.profile), m.savedBy])).toEqual(
      [...names].sort().map((name) => [name, `Ref ${names.indexOf(name)}`, `person-${names.indexOf(name)}`]),
    );
  });

  it('lets the last save of one name win, saying who saved it and when', async () => {
    const [ann, bob] = [storeOn(await open()), storeOn(await open())];
    await ann.save({ profile: profile('acme', 'Ref'), savedBy: 'ann' });
    ledgers.clock.advance(60_000);
    await bob.save({ profile: profile('acme', 'Reference'), savedBy: 'bob' });
    const saved = await ann.list();
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ savedBy: 'bob', savedAt: ledgers.clock.now().toISOString() });
    expect(columnOf(saved[0]!.profile)).toBe('Reference');
  });

  it('removes one name and keeps the others; removing a name not saved says so', async () => {
    const mappings = storeOn(await open());
    await mappings.save({ profile: profile('acme', 'Ref'), savedBy: 'ann' });
    await mappings.save({ profile: profile('globex', 'Order'), savedBy: 'ann' });
    expect(await mappings.remove('acme')).toBe(true);
    expect(await mappings.remove('acme')).toBe(false);
    expect((await mappings.list()).map((m) => m.profile.name)).toEqual(['globex']);
  });

  it('leaves out a saved mapping that no longer reads as a profile, rather than failing every file', async () => {
    const ledger = await open();
    await ledger.mappings.save({ name: 'odd', profile: JSON.stringify({ name: 'bad name!', fields: {} }), savedBy: 'ann' });
    await storeOn(ledger).save({ profile: profile('ok', 'Ref'), savedBy: 'ann' });
    expect((await storeOn(ledger).list()).map((m) => m.profile.name)).toEqual(['ok']);
  });

  it('carries the mappings a ledger from before the table held in its setting into rows, and stops using the setting', async () => {
    const legacy = [
      { profile: profile('acme', 'Ref'), savedBy: 'ann', savedAt: '2031-01-01T10:00:00.000Z' },
      { profile: profile('globex', 'Order'), savedBy: 'bob', savedAt: '2031-01-02T10:00:00.000Z' },
    ];
    await ledgers.store.createBeforeMappingsTable({ mappings: JSON.stringify(legacy), fulfillmentApi: 'https://api.example.test' });
    const ledger = await open();
    expect(await storeOn(ledger).list()).toEqual(legacy);
    expect(await ledger.getSetting('mappings')).toBeNull();
    expect(await ledger.getSetting('fulfillmentApi')).toBe('https://api.example.test');
    // Saved from now on in the table alone.
    await storeOn(ledger).save({ profile: profile('initech', 'No'), savedBy: 'cy' });
    expect(await ledger.getSetting('mappings')).toBeNull();
    expect((await storeOn(await open()).list()).map((m) => m.profile.name)).toEqual(['acme', 'globex', 'initech']);
  });

  it('keeps a setting it cannot wholly carry, so nothing is lost, and carries what it can', async () => {
    const legacy = JSON.stringify([{ profile: { fields: {} }, savedBy: 'ann' }, { profile: profile('acme', 'Ref'), savedBy: 'bob' }]);
    await ledgers.store.createBeforeMappingsTable({ mappings: legacy });
    const ledger = await open();
    expect(await ledger.mappings.list()).toEqual([{ name: 'acme', profile: JSON.stringify(profile('acme', 'Ref')), savedBy: 'bob', savedAt: '2031-01-02T03:04:05.000Z' }]);
    expect(await ledger.getSetting('mappings')).toBe(legacy);
  });
});
