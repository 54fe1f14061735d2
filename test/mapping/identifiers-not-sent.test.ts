/**
 * A profile's marketplace identifiers are read beside the payload, never into it: the exports imported
 * with the built-in profiles send exactly what the same profiles without identifiers send.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImportAt } from '../support/run-import-at.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { openLedger } from '../../src/ledger/index.js';
import { BUILTIN_PROFILES } from '../../src/mapping/builtin/index.js';
import type { Profile } from '../../src/mapping/profile.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { sandboxImportOptions } from '../import/sandbox-import-options.js';
import { useTempDir } from '../support/temp-dir.js';
import { context, MARKETPLACE_FIXTURES, NOW } from './exports-support.js';

const at = useTempDir('identifiers-not-sent');
const EXPORTS: [string, string][] = [['amazon', 'amazon-order-report.txt'], ['ebay', 'ebay-orders-report.csv'], ['shopify', 'shopify-orders.csv'], ['woocommerce', 'woocommerce-one-row-per-item.csv']];

/** Imports one export with this profile into a sandbox of its own: the payloads it received, and the ledger's lines. */
async function sent(name: string, file: string, profile: Profile) {
  mkdirSync(at(name));
  const statePath = at(`${name}/sandbox-state.json`);
  const sandbox = await startSandbox({ port: 0, startTime: NOW, statePath });
  try {
    await runImportAt(sandboxImportOptions(sandbox, { context, ledgerPath: at(`${name}/ledger.db`) }, { files: [join(MARKETPLACE_FIXTURES, file)], out: at(name), readSettings: { mapping: { kind: 'profile', profile } } }));
  } finally {
    await sandbox.close();
  }
  const payloads = (JSON.parse(readFileSync(statePath, 'utf8')) as { orders: { payload: CreateOrderPayload }[] }).orders.map((o) => o.payload);
  const ledger = await openLedger(at(`${name}/ledger.db`));
  try {
    return { payloads, lines: await ledger.marketplace.linesOf(payloads.map((p) => p.orderDetails.customerOrderId)) };
  } finally {
    await ledger.close();
  }
}

describe('marketplace identifiers are never sent', () => {
  for (const [name, file] of EXPORTS) {
    it(`${name}: the payloads POSTed are those of the profile without identifiers`, async () => {
      const builtin = BUILTIN_PROFILES.find((p) => p.name === name)!;
      const { marketplace: _m, identifiers: _i, ...bare } = builtin;
      const withIds = await sent(`${name}-with`, file, builtin);
      const without = await sent(`${name}-without`, file, bare);
      expect(withIds.payloads.length).toBeGreaterThan(0);
      expect(withIds.payloads).toEqual(without.payloads);
      expect(withIds.lines.length).toBeGreaterThan(0);
      expect(without.lines).toEqual([]);
    });
  }
});
