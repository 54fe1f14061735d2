/**
 * The apostrophe the result files put before text a spreadsheet would run as a formula, and its removal
 * when a corrected result file is read again: the writer (output-files/) and the reader (orders/) share it.
 */
/**
 * Text a spreadsheet would run as a formula (OWASP "CSV injection": cells starting with = + - @ TAB CR),
 * except number-like text (`-5`, `+3.50`, `-$1,234.50`, `1e5`, `-12345`), which holds no letters or
 * parentheses and so cannot call anything. A phone such as `+1-555-0134` IS matched: Excel would compute
 * it (=-688), so the prefix protects the value as well as the reader.
 */
export const FORMULA_LIKE = /^(?![+-]\$?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$)[=+\-@\t\r]/;

/** The neutralised text of a string cell: a leading apostrophe where a spreadsheet would see a formula. */
export function neutraliseFormula(text: string): string {
  return FORMULA_LIKE.test(text) ? `'${text}` : text;
}

const APOSTROPHE = 0x27;

/**
 * A cell's text without the apostrophe neutraliseFormula puts before it: a corrected result CSV read
 * again must send `+1 617 555 0100`, not `'+1 617 555 0100`. Only an apostrophe followed by text the
 * guard prefixes is taken for it; `'quoted` or `'-5` stay as typed. Result files echo the input cells
 * as read, so a cell that went through several corrections still holds one apostrophe, never two.
 * (Excel's own quote prefix never reaches a cell's value: this only undoes ours.)
 */
export function removeFormulaGuard(text: string): string {
  if (text.charCodeAt(0) !== APOSTROPHE) return text;
  const rest = text.slice(1);
  return FORMULA_LIKE.test(rest) ? rest : text;
}
