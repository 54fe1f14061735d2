import { describe, expect, it } from 'vitest';
import { checkRoomForResult } from '../../src/result-files/write-result.js';
import { OutputError, UsageError } from '../../src/errors.js';
import { checkRoomForRows } from '../../src/orders/check-sheet.js';

const MB = 1_000_000;

describe('free disk, checked before a large sheet is read or its result written', () => {
  const sheet = { file: 'big.csv', format: 'csv' as const, sizeBytes: 2_000 * MB };

  it('refuses a sheet whose rows need more disk than the temporary folder has, saying how much and where', () => {
    const free = (dir: string) => (dir === '/spill' ? 2_199 * MB : null);
    expect(() => checkRoomForRows(sheet, { rowStore: { dir: '/spill' } }, free)).toThrow(UsageError);
    expect(() => checkRoomForRows(sheet, { rowStore: { dir: '/spill' } }, free)).toThrow(
      'Not enough free disk to check big.csv: its rows are kept in /spill while its orders are checked, about 2,200 MB, and 2,199 MB is free there.',
    );
    // One byte more than the rows take is enough.
    expect(() => checkRoomForRows(sheet, { rowStore: { dir: '/spill' } }, () => 2_200 * MB)).not.toThrow();
  });

  it('asks nothing of the disk for a sheet that fits in memory, nor when the free space cannot be told', () => {
    const never = () => {
      throw new Error('not asked');
    };
    expect(() => checkRoomForRows({ ...sheet, sizeBytes: 50 * MB }, {}, never)).not.toThrow();
    expect(() => checkRoomForRows(sheet, {}, () => null)).not.toThrow();
  });

  it('refuses to start a result file the disk has no room for, as an output error naming it', () => {
    const attempt = () => checkRoomForResult('/out/big.result.csv', 'csv', 1_000 * MB, () => 1_199 * MB);
    expect(attempt).toThrow(OutputError);
    expect(attempt).toThrow('Could not write the result file /out/big.result.csv: it needs about 1,200 MB and 1,199 MB is free on that disk.');
    expect(() => checkRoomForResult('/out/big.result.csv', 'csv', 1_000 * MB, () => 1_200 * MB)).not.toThrow();
  });
});
