/** Result files and the order template: what the commands and the web app call. */
export { writeResultXlsx, MAX_FIX_ROWS, MAX_NOTES_PER_SHEET, type ResultXlsxOptions } from './write-result-xlsx.js';
export { writeResultCsv } from './write-result-csv.js';
export { writeTemplate, TEMPLATE_INPUT_ROWS, type TemplateOptions } from './write-template.js';
export { XLSX_MAX_ROWS } from './results-sheet.js';
export { formatRowIssues, formatIssueLine } from './issue-text.js';
export { neutraliseFormula, formatSheetDate } from './cell-values.js';
export type { ResultRow, ResultSheetInput, ResultSummary } from './types.js';
