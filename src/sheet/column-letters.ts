/** Spreadsheet column letters, as messages name a column: its own module, so a reader that names one loads nothing else. */

/** Spreadsheet column letters for a 0-based index: 0 -> A, 25 -> Z, 26 -> AA. */
export function toColumnLetter(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}
