/** An import's sheets read and checked offline, each with its orders' outcomes so far. */
import { hasErrors } from '../issues/index.js';
import { toJsonIssues, type JsonInput } from '../run-report/json.js';
import { checkSheetFile, unreadableInput } from '../validate/check-file.js';
import { outcomeView, type FileState } from './plan-import.js';
import type { ImportOptions } from './import-options.js';

/** Each file read and checked offline: what the report says of it, and the checked sheets. */
export async function readSheets(files: readonly string[], options: ImportOptions): Promise<{ inputs: JsonInput[]; states: FileState[]; hasUnusableInput: boolean }> {
  const inputs: JsonInput[] = [];
  const states: FileState[] = [];
  let hasUnusableInput = false;
  for (const file of files) {
    const checked = await checkSheetFile(file, options);
    if (!checked.ok) {
      hasUnusableInput = true;
      inputs.push(unreadableInput(checked));
      continue;
    }
    const { sheet } = checked;
    if (hasErrors(sheet.fileIssues)) hasUnusableInput = true;
    const notices = checked.notices.length > 0 ? { notices: [...checked.notices] } : {};
    inputs.push({ file, sha256: sheet.sha256, rows: sheet.rows.size, orders: sheet.orders.length, issues: toJsonIssues(sheet.fileIssues), ...notices, ...(checked.mapping && { mapping: checked.mapping }) });
    states.push({ file, sheet, outcomes: sheet.orders.map((o) => outcomeView(o.status === 'invalid' || hasErrors(o.issues) ? 'invalid' : 'valid', [...o.issues])) });
  }
  return { inputs, states, hasUnusableInput };
}

