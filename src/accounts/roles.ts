/**
 * What each role may do (PRODUCT.md section 8). Each role can do what the one before it can: a
 * viewer checks sheets and reads history and reconciliations; an operator also submits, cancels and
 * runs reconciliations; an admin also manages accounts.
 */
import { ROLES, type Role } from '../ledger/index.js';

export { ROLES, type Role };

export const PERMISSIONS = {
  /** Upload and check sheets, read verdicts, history, jobs and reconciliations, download results. */
  view: 'viewer',
  /** Submit a checked sheet, cancel a submission. */
  submit: 'operator',
  /** Run a reconciliation, move the embedded sandbox's clock. */
  reconcile: 'operator',
  /** Add, change and remove accounts. */
  manageUsers: 'admin',
} as const satisfies Record<string, Role>;
export type Permission = keyof typeof PERMISSIONS;

export function isAllowed(role: Role, permission: Permission): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(PERMISSIONS[permission]);
}

export function isRole(text: string): text is Role {
  return (ROLES as readonly string[]).includes(text);
}

/** Words for a page or a message: what the role may do. */
export function describeRole(role: Role): string {
  switch (role) {
    case 'viewer':
      return 'checks sheets and reads history and reconciliations';
    case 'operator':
      return 'also submits, cancels and runs reconciliations';
    case 'admin':
      return 'also manages accounts';
  }
}
