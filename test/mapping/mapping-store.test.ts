/** Saved mappings live in the ledger's mappings table: shared by whoever shares the ledger, each save keeping the others. */
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { heldOpen } from '../../src/mapping/ledger-access.js';
import { createMappingStore } from '../../src/mapping/mapping-store.js';
import { parseProfile } from '../../src/mapping/profile.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('mapping-store');
const profile = (name: string, column: string) => parseProfile({ name, label: `${name} export`, fields: { customerOrderId: { column } } }, name);
const saved = (name: string, column: string) => ({ profile: profile(name, column), savedBy: 'local user' });

describe('the saved mappings', () => {
  it('keep each other on save, and a name saved again replaces its mapping', async () => {
    const ledger = await openLedger(at('ledger.db'));
    try {
      const store = createMappingStore(heldOpen(ledger));
      await store.save(saved('acme', 'Ref'));
      await store.save(saved('globex', 'Order'));
      await store.save(saved('acme', 'Reference'));
      const names = (await store.list()).map((m) => [m.profile.name, (m.profile.fields.customerOrderId as { column: string }).column]);
      expect(names).toEqual([['acme', 'Reference'], ['globex', 'Order']]);
    } finally {
      await ledger.close();
    }
  });

  it('leave out what no longer reads as a profile rather than failing every file', async () => {
    const path = at('odd.db');
    const ledger = await openLedger(path);
    try {
      await ledger.mappings.save({ name: 'bad', profile: JSON.stringify({ name: 'bad name!', fields: {} }), savedBy: 'local user' });
      await createMappingStore(heldOpen(ledger)).save(saved('ok', 'Ref'));
      expect((await createMappingStore(heldOpen(ledger)).list()).map((m) => m.profile.name)).toEqual(['ok']);
    } finally {
      await ledger.close();
    }
  });
});
