/** An import's sheets read and checked offline, each with its orders' outcomes so far. */
import { hasErrors } from '../issues/index.js';
import { toJsonIssues, type JsonInput } from '../run-report/json.js';
import { checkSheetFiles } from '../validate/check-file.js';
import { outcomeView, type FileState } from './plan-import.js';
import type { ImportOptions } from './import-options.js';

/** Each file read and checked offline: what the report says of it, and the checked sheets. */
export async function readSheets(files: readonly string[], options: ImportOptions): Promise<{ inputs: JsonInput[]; states: FileState[]; hasUnusableInput: boolean }> {
  const inputs: JsonInput[] = [];
  const states: FileState[] = [];
  let hasUnusableInput = false;
  const unreadable = (input: JsonInput) => {
    hasUnusableInput = true;
    inputs.push(input);
  };
  for await (const checked of checkSheetFiles(files, options, unreadable)) {
    const { file, sheet } = checked;
    if (hasErrors(sheet.fileIssues)) hasUnusableInput = true;
    const notices = checked.notices.length > 0 ? { notices: [...checked.notices] } : {};
    inputs.push({ file, sha256: sheet.sha256, rows: sheet.rows.size, orders: sheet.orders.length, issues: toJsonIssues(sheet.fileIssues), ...notices, ...(checked.mapping && { mapping: checked.mapping }) });
    states.push({ file, sheet, ...(checked.profile && { profile: checked.profile }), outcomes: sheet.orders.map((o) => outcomeView(o.status === 'invalid' || hasErrors(o.issues) ? 'invalid' : 'valid', [...o.issues])) });
  }
  return { inputs, states, hasUnusableInput };
}

