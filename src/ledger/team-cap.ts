/**
 * The team's concurrency cap: how many order POSTs may be in flight at once across every run on one
 * shared (PostgreSQL) ledger. It is a property of the ledger, kept in its settings, so every run obeys
 * it whatever its own flags say; a run's own `--team-concurrency` can only make its share smaller.
 */

/** The settings row that holds the cap (absent: no cap). */
export const TEAM_CAP_SETTING = 'team_concurrency';
/** The most the cap can be; the same bound as `--team-concurrency`. */
export const MAX_TEAM_CAP = 1000;
/**
 * How often a run with no cap in force looks again whether one was set, in ms. A run under a cap
 * reads it with every place it takes (in the same query), so a lowered or raised cap applies at
 * once; a run without one would otherwise pay a query per POST to learn there is still none.
 */
export const CAP_REREAD_MS = 5_000;

/** The cap a settings value holds; null when none (or one this version cannot read, which caps nothing rather than stopping the team). */
export function parseTeamCap(stored: string | null): number | null {
  if (stored === null || !/^\d{1,4}$/.test(stored)) return null;
  const cap = Number(stored);
  return cap >= 1 && cap <= MAX_TEAM_CAP ? cap : null;
}

/** What `ledger set team-concurrency` accepts: a whole number from 1 to MAX_TEAM_CAP, or `off`. */
export type TeamCapChange = { ok: true; cap: number | null } | { ok: false; message: string };

export function parseTeamCapChange(text: string): TeamCapChange {
  const value = text.trim().toLowerCase();
  if (value === 'off' || value === 'none') return { ok: true, cap: null };
  const cap = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isInteger(cap) && cap >= 1 && cap <= MAX_TEAM_CAP) return { ok: true, cap };
  return { ok: false, message: `team-concurrency takes a whole number from 1 to ${MAX_TEAM_CAP} (the POSTs in flight across every run on the ledger), or off; not "${text}".` };
}

/**
 * What a run says about its share of the team's POSTs, from the ledger's cap and the run's own
 * `--team-concurrency` (its share). `share_above_cap` is said once per run, even when a cap lowered
 * mid-run is what puts the share above it.
 */
export type ShareNote =
  | { kind: 'team_cap'; cap: number }
  | { kind: 'own_share'; share: number; cap: number }
  | { kind: 'share_above_cap'; share: number; cap: number }
  | { kind: 'run_only'; share: number }
  | { kind: 'cap_changed'; cap: number | null; previous: number | null };

/** The notes at a run's start. */
export function decideStartNotes(cap: number | null, share: number | undefined, isShared: boolean): ShareNote[] {
  if (cap === null) return share !== undefined && isShared ? [{ kind: 'run_only', share }] : [];
  if (share === undefined) return [{ kind: 'team_cap', cap }];
  return share > cap ? [{ kind: 'share_above_cap', share, cap }] : [{ kind: 'own_share', share, cap }];
}

/** The notes when a running run reads a cap other than the one it knew; `hasSaidAbove`: share_above_cap was said already. */
export function decideChangeNotes(cap: number | null, previous: number | null, share: number | undefined, hasSaidAbove: boolean): ShareNote[] {
  const notes: ShareNote[] = [{ kind: 'cap_changed', cap, previous }];
  if (cap !== null && share !== undefined && share > cap && !hasSaidAbove) notes.push({ kind: 'share_above_cap', share, cap });
  return notes;
}
