/** The mapping commands and flags as a user runs them: the built CLI, real files, exit codes. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { heldOpen } from '../../src/mapping/ledger-access.js';
import { createMappingStore } from '../../src/mapping/mapping-store.js';
import { parseProfile } from '../../src/mapping/profile.js';
import { ROOT, runCli, SAMPLE_NOW, tempDir } from './run-cli.js';

const SHOPIFY = join(ROOT, 'test', 'fixtures', 'marketplaces', 'shopify-orders.csv');

describe('order-batch with a marketplace export', () => {
  it('says first how the file was read, lists warnings too, and exits 1 for the invalid orders', async () => {
    const dir = tempDir();
    const result = await runCli(['validate', SHOPIFY, '--now', SAMPLE_NOW, '--out', join(dir, 'r.csv'), '--log-level', 'silent']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe(`${SHOPIFY}: read as a Shopify orders export (mapping profile shopify, detected from its columns).`);
    expect(result.stdout).toContain('row 5, Shipping Zip: Shipping Zip is empty');
  });

  it('suggests a draft profile for an unknown export, which then reads it', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'custom.csv');
    writeFileSync(sheet, [
      'Order Number,Order Date,Ship To Name,Ship To Street,Ship To City,Ship To State,Ship To Zip,Ship To Country,Ship To Phone,Billing Name,Billing Phone,SKU,Item Title,Qty,Unit Price,Tax',
      'A-1,2026-11-18,Ann Lee,1 Main St,Springfield,IL,62704,United States,217-555-0134,Bob Pay,217-555-0000,PRD-1001,Mug,2,5.00,0.80',
    ].join('\n'));
    const suggested = await runCli(['mapping', 'suggest', sheet, '--out', join(dir, 'custom.json')]);
    expect(suggested.code).toBe(0);
    expect(suggested.stderr).toMatch(/fullName +<- "Ship To Name" \(exact\)/);
    expect(JSON.parse(readFileSync(join(dir, 'custom.json'), 'utf8')).fields.phone).toEqual({ column: 'Ship To Phone' });

    const checked = await runCli(['validate', sheet, '--mapping', join(dir, 'custom.json'), '--now', SAMPLE_NOW, '--out', join(dir, 'r.csv'), '--json']);
    expect(checked.code).toBe(0);
    const report = JSON.parse(checked.stdout);
    expect(report.summary).toEqual({ valid: 1 });
    expect(report.input[0].mapping).toMatchObject({ profile: 'custom', detected: false });
  });

  it('lists the profiles, and refuses a bad date order or an unknown profile with exit 2', async () => {
    const list = await runCli(['mapping', 'list']);
    expect(list.stdout).toContain('shopify        Shopify orders export (built-in)');
    const badOrder = await runCli(['validate', SHOPIFY, '--date-order', 'ymd']);
    expect(badOrder.code).toBe(2);
    expect(badOrder.stderr).toContain('--date-order takes mdy (month first, 11/24/2026) or dmy (day first, 24.11.2026), not "ymd".');
    const badProfile = await runCli(['validate', SHOPIFY, '--mapping', 'shopfy']);
    expect(badProfile.code).toBe(2);
    expect(badProfile.stderr).toContain('--mapping shopfy: no profile of that name and no such file.');
  });

  it('saves an edited profile file for the team, refusing a bad field or a built-in name with what is wrong', async () => {
    const dir = tempDir();
    const ledger = join(dir, 'ledger.db');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'acme', label: 'Acme export', fields: { fulName: { column: 'Who' }, quantity: { colum: 'Count' } } }));
    const refused = await runCli(['mapping', 'save', bad, '--ledger', ledger]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Mapping profile ${bad} is not valid: fields.quantity: a rule is one of {"column": ...}`);
    expect(refused.stderr).toContain('"fulName" is not an order field');
    const draft = join(dir, 'woo.json');
    await runCli(['mapping', 'suggest', join(ROOT, 'test', 'fixtures', 'marketplaces', 'woocommerce-one-row-per-item.csv'), '--out', draft]);
    const builtIn = await runCli(['mapping', 'save', draft, '--ledger', ledger]);
    expect([builtIn.code, builtIn.stderr]).toEqual([2, expect.stringContaining('woocommerce is the name of a built-in profile: save')]);
    const saved = await runCli(['mapping', 'save', draft, '--name', 'woo-team', '--ledger', ledger]);
    expect([saved.code, saved.stdout]).toEqual([0, expect.stringMatching(/^Saved the team mapping woo-team/)]);
    expect((await runCli(['mapping', 'save', draft, '--name', 'woo-team', '--ledger', ledger])).stdout).toMatch(/^Replaced the team mapping woo-team/);
    expect((await runCli(['mapping', 'list', '--ledger', ledger])).stdout).toMatch(/woo-team +WooCommerce order export .*\(saved\)/);
    const audit = (JSON.parse((await runCli(['audit', '--ledger', ledger, '--json'])).stdout) as { entries: { action: string; detail: string }[] }).entries;
    expect(audit.filter((e) => e.action === 'mapping_save').map((e) => e.detail)).toEqual(['woo-team', 'woo-team']);
  });

  it('knows the mappings saved in the ledger: listed, detected and named with --mapping', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'acme.csv');
    writeFileSync(sheet, [
      'Ref,When,Who,Where,Town,Region,Zip,Nation,Tel,Article,Item,Count,Each,Tax',
      'AC-1,2026-11-18,Ann Lee,1 Main St,Springfield,IL,62704,US,217-555-0134,PRD-1001,Mug,2,5.00,0.80',
    ].join('\n'));
    const fields = { customerOrderId: { column: 'Ref' }, orderDate: { column: 'When' }, sourceOfSale: { constant: 'OtherMarketplace' }, salesTax: { column: 'Tax' }, fullName: { column: 'Who' }, addressLine1: { column: 'Where' }, city: { column: 'Town' }, provinceOrState: { column: 'Region' }, postalOrZipCode: { column: 'Zip' }, countryCode: { column: 'Nation' }, phone: { column: 'Tel' }, productId: { column: 'Article' }, customerLineItemId: { generate: 'lineNumber' }, name: { column: 'Item' }, quantity: { column: 'Count' }, unitPrice: { column: 'Each' } };
    const ledger = join(dir, 'ledger.db');
    const held = await openLedger(ledger);
    await createMappingStore(heldOpen(held)).save({ profile: parseProfile({ name: 'acme', label: 'Acme export', fields }, 'test'), savedBy: 'local user' });
    await held.close();
    const list = await runCli(['mapping', 'list', '--ledger', ledger]);
    expect(list.stdout).toContain('acme           Acme export (saved)');
    const checked = await runCli(['validate', sheet, '--ledger', ledger, '--now', SAMPLE_NOW, '--out', join(dir, 'r.csv'), '--json']);
    expect(JSON.parse(checked.stdout).input[0].mapping).toMatchObject({ profile: 'acme', detected: true });
    expect(checked.code).toBe(0);
    const named = await runCli(['validate', sheet, '--ledger', ledger, '--mapping', 'acme', '--now', SAMPLE_NOW, '--out', join(dir, 'r2.csv'), '--json']);
    expect(JSON.parse(named.stdout).input[0].mapping).toMatchObject({ profile: 'acme', detected: false });

    const removed = await runCli(['mapping', 'remove', 'acme', '--ledger', ledger]);
    expect([removed.code, removed.stdout]).toEqual([0, 'Removed the saved mapping acme.\n']);
    expect((await runCli(['mapping', 'list', '--ledger', ledger])).stdout).not.toContain('acme');
    const again = await runCli(['mapping', 'remove', 'acme', '--ledger', ledger]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no mapping named acme is saved in the ledger');
    const audit = (JSON.parse((await runCli(['audit', '--ledger', ledger, '--json'])).stdout) as { entries: { action: string; detail: string }[] }).entries;
    expect(audit.filter((e) => e.action === 'mapping_remove').map((e) => e.detail)).toEqual(['acme']);
  });

  it('creates no ledger by looking: mapping list and mapping remove on a ledger not made yet', async () => {
    const ledger = join(tempDir(), 'none', 'ledger.db');
    const list = await runCli(['mapping', 'list', '--ledger', ledger]);
    expect(list.code).toBe(0);
    const removed = await runCli(['mapping', 'remove', 'acme', '--ledger', ledger]);
    expect(removed.code).toBe(1);
    expect(existsSync(ledger)).toBe(false);
  });
});
