/** Viewer: check sheets, read history and reconciliations. Operator: also submit, cancel, reconcile. Admin: also manage accounts. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];
