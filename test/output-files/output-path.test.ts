import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { resultPathFor } from '../../src/output-files/output-path.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('out');

describe('resultPathFor', () => {
  it('puts the result beside the input by default', () => {
    expect(resultPathFor('/in/orders.csv', undefined, 1, 'result')).toBe('/in/orders.result.xlsx');
  });

  it('never lets orders.csv and orders.xlsx of one run overwrite each other', () => {
    const taken = new Set<string>();
    const a = resultPathFor('/in/orders.csv', undefined, 2, 'result', taken);
    const b = resultPathFor('/in/orders.xlsx', undefined, 2, 'result', taken);
    const c = resultPathFor('/other/../in/orders.xlsx', undefined, 3, 'result', taken);
    expect(a).toBe('/in/orders.result.xlsx');
    expect(b).toBe('/in/orders-xlsx.result.xlsx');
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it('takes --out as a folder when it is one, and refuses a file name for several inputs', () => {
    expect(resultPathFor('/in/orders.csv', dir, 2, 'import-result')).toBe(join(dir, 'orders.import-result.xlsx'));
    expect(() => resultPathFor('/in/orders.csv', join(dir, 'x.xlsx'), 2, 'result')).toThrow(UsageError);
    expect(() => resultPathFor('/in/orders.csv', join(dir, 'x.pdf'), 1, 'result')).toThrow(/\.xlsx or \.csv/);
  });
});
