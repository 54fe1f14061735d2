import { describe, expect, test } from 'vitest';
import { formatIssueLine, formatRowIssues, groupCellIssues } from '../../src/output-files/issue-text.js';
import { issue } from '../support/result-rows.js';

describe('issue text', () => {
  test('puts the column first and marks a warning after it', () => {
    expect(formatIssueLine(issue(4, 'postalOrZipCode', 'invalid_postal_code', 'ZIP code "1234" must be 5 digits.'))).toBe('zip: ZIP code "1234" must be 5 digits.');
    expect(formatIssueLine(issue(4, 'postalOrZipCode', 'postal_code_padded', 'Padded to 02134.', 'warning'))).toBe('zip (warning): Padded to 02134.');
    expect(formatIssueLine(issue(4, null, 'api_rejected', 'The API said no.'))).toBe('The API said no.');
  });

  test('lists errors before warnings, one per line', () => {
    const text = formatRowIssues({
      issues: [
        issue(4, 'postalOrZipCode', 'postal_code_padded', 'Padded.', 'warning'),
        issue(4, 'fullName', 'required', 'fullName is required.'),
      ],
    });
    expect(text).toBe('fullName: fullName is required.\nzip (warning): Padded.');
  });

  test('points a row without errors at the rows of its order that have them', () => {
    expect(formatRowIssues({ issues: [], relatedErrorRows: [2, 5] })).toBe('order has errors on rows 2, 5');
    expect(formatRowIssues({ issues: [issue(3, 'postalOrZipCode', 'postal_code_padded', 'Padded.', 'warning')], relatedErrorRows: [2] })).toBe(
      'zip (warning): Padded.\norder has errors on row 2',
    );
  });

  test('does not point elsewhere when the row has errors of its own', () => {
    expect(formatRowIssues({ issues: [issue(2, 'fullName', 'required', 'Required.')], relatedErrorRows: [2, 5] })).toBe('fullName: Required.');
  });

  test('groups the issues of one cell into one note, an error outranking a warning', () => {
    const cells = groupCellIssues([
      issue(2, 'postalOrZipCode', 'postal_code_padded', 'Padded.', 'warning'),
      issue(2, 'postalOrZipCode', 'invalid_postal_code', 'Bad ZIP.'),
      issue(2, null, 'subtotal_mismatch', 'No cell.'),
    ]);
    expect(cells).toEqual([{ colIndex: 8, severity: 'error', note: '(warning) Padded.\nBad ZIP.' }]);
  });
});
