/** The audit trail in words, as History and `order-batch audit` show it: refusals say why, counts agree in number. */
import { describe, expect, it } from 'vitest';
import { describeAuditAction } from '../../src/audit/describe.js';

const entry = (fields: Partial<Parameters<typeof describeAuditAction>[0]>) => describeAuditAction({ action: 'check', fileName: null, fileSha256: null, counts: null, detail: null, ...fields });

describe('audit entries in words', () => {
  it('says why a login or an action was refused', () => {
    expect(entry({ action: 'login_refused', detail: 'unknown account "nobody"' })).toBe('was refused a login: unknown account "nobody"');
    expect(entry({ action: 'refused', detail: 'POST /reconcile needs the operator role; vera is viewer' })).toBe('was refused: POST /reconcile needs the operator role; vera is viewer');
  });

  it('counts nouns in the singular and the plural, states as they are', () => {
    expect(entry({ action: 'reconcile', fileName: 'rec.xlsx', counts: { shipped: 3, exception: 16, not_found: 1 } })).toBe('ran a reconciliation rec.xlsx: 3 shipped, 16 exceptions, 1 not found');
    expect(entry({ counts: { rows: 1, valid: 1, exception: 1 } })).toBe('checked: 1 row, 1 valid, 1 exception');
    expect(entry({ action: 'submit', fileName: 'cx.csv', counts: { valid: 2, cells_edited: 2 } })).toBe('submitted cx.csv: 2 valid, 2 cells corrected');
  });
});
