/** The audit trail in words: one line per entry for `order-batch audit` and the history page. */
import type { AuditAction, AuditRecord } from '../ledger/index.js';

const VERBS: Record<AuditAction, string> = {
  check: 'checked',
  validate: 'validated',
  submit: 'submitted',
  import: 'imported',
  cancel: 'cancelled the submission of',
  reconcile: 'ran a reconciliation',
  download: 'downloaded',
  login: 'logged in',
  login_refused: 'was refused a login',
  logout: 'logged out',
  user_add: 'added the account',
  user_role: 'changed the role of',
  user_disable: 'disabled the account',
  user_enable: 'enabled the account',
  user_remove: 'removed the account',
  user_password: 'set a new password for',
  user_email: 'set the e-mail address of',
  mapping_save: 'saved the column mapping',
  mapping_remove: 'removed the column mapping',
  cell_edit: 'corrected a cell of',
  mapping: 'chose the columns of',
  refused: 'was refused',
  ledger_setting: 'changed the ledger setting',
  notify_failed: 'could not deliver a notification',
  token_create: 'created the API token',
  token_revoke: 'revoked the API token',
  api_read: 'read through the API',
  login_sso: 'logged in with the company login',
};

/** "submitted orders.csv (sha256 3f2a9c1d…): 40 accepted, 2 rejected". */
export function describeAuditAction(entry: Pick<AuditRecord, 'action' | 'fileName' | 'fileSha256' | 'counts' | 'detail'>): string {
  const parts = [VERBS[entry.action]];
  if (entry.fileName) parts.push(entry.fileSha256 ? `${entry.fileName} (sha256 ${entry.fileSha256.slice(0, 12)}…)` : entry.fileName);
  if (entry.detail) {
    if (entry.action === 'login_refused' || entry.action === 'refused') parts[parts.length - 1] += `: ${entry.detail}`;
    else parts.push(entry.action.startsWith('user_') || entry.action.startsWith('mapping_') || entry.action === 'ledger_setting' ? entry.detail : `(${entry.detail})`);
  }
  const counts = describeCounts(entry.counts);
  return counts ? `${parts.join(' ')}: ${counts}` : parts.join(' ');
}

/** Counts whose name is a noun, in the singular and the plural (the others are states: "2 valid", "1 shipped"). */
const NOUNS: Record<string, readonly [string, string]> = {
  exception: ['exception', 'exceptions'],
  rows: ['row', 'rows'],
  orders: ['order', 'orders'],
  cells_edited: ['cell corrected', 'cells corrected'],
};

export function describeCounts(counts: Record<string, number> | null | undefined): string {
  if (!counts) return '';
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${NOUNS[name]?.[n === 1 ? 0 : 1] ?? name.replace(/_/g, ' ')}`)
    .join(', ');
}

/** One line: when (UTC), who, through what and from where, what. */
export function formatAuditLine(entry: AuditRecord): string {
  const when = `${entry.at.slice(0, 19).replace('T', ' ')}Z`;
  const where = entry.address ? `${entry.via}, ${entry.address}` : entry.via;
  return `${when}  ${entry.actor} (${where})  ${describeAuditAction(entry)}`;
}
