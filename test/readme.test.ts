import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ISSUE_CODES, CELL_ISSUE_CODES, FILE_ISSUE_CODES } from '../src/issues/index.js';
import { COLUMNS } from '../src/sheet/columns.js';

const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('documents every issue code', () => {
    for (const code of [...FILE_ISSUE_CODES, ...CELL_ISSUE_CODES, ...API_ISSUE_CODES]) expect(README).toContain(`| \`${code}\` |`);
  });

  it('documents every sheet column', () => {
    for (const column of COLUMNS) expect(README).toContain(`| \`${column.field}\` | ${column.level} |`);
  });

  it('shows the two set-up commands', () => {
    expect(README).toContain('npm ci && npm start');
    expect(README).toContain('npm test');
  });
});
