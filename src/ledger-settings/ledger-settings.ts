/**
 * `order-batch ledger show` and `ledger set team-concurrency`: what a ledger is and holds, and the
 * team's concurrency cap kept in it (team-cap.ts). Return values; the CLI prints them.
 */
import type { Actor } from '../accounts/manage.js';
import { UsageError } from '../errors.js';
import { type Ledger, type LedgerBackend, type OrderState, parseTeamCap, parseTeamCapChange, TEAM_CAP_SETTING } from '../ledger/index.js';
import { redactUrl } from '../redact.js';

export interface LedgerShow {
  ledger: string;
  backend: LedgerBackend;
  schemaVersion: string;
  /** The team's cap stored in the ledger (null: none). On SQLite it is kept, not applied. */
  teamConcurrency: number | null;
  /** The claim lease this host's runs take (--claim-lease, config claimLeaseSeconds): each run's own, not the ledger's. */
  claimLeaseSeconds: number;
  /** The API the ledger records orders for (null: none yet), without a password. */
  endpoint: string | null;
  orders: Record<OrderState, number>;
  runs: number;
  /** Runs going now (PostgreSQL); null on SQLite. */
  liveRuns: number | null;
  accounts: number;
  mappings: number;
}

/** What the ledger is and holds. */
export async function showLedger(ledger: Ledger, options: { claimLeaseMs: number }): Promise<LedgerShow> {
  const [described, cap, endpoint, orders, accounts, mappings] = await Promise.all([
    ledger.describe(),
    ledger.getSetting(TEAM_CAP_SETTING),
    ledger.getSetting('endpoint'),
    ledger.countByState(),
    ledger.users.list(),
    ledger.mappings.list(),
  ]);
  return {
    ledger: ledger.location,
    backend: ledger.backend,
    schemaVersion: described.schemaVersion,
    teamConcurrency: parseTeamCap(cap),
    claimLeaseSeconds: Math.round(options.claimLeaseMs / 1000),
    endpoint: endpoint === null ? null : redactUrl(endpoint),
    orders,
    runs: described.runs,
    liveRuns: described.liveRuns,
    accounts: accounts.length,
    mappings: mappings.length,
  };
}

export interface TeamCapSet {
  ledger: string;
  teamConcurrency: number | null;
  previous: number | null;
}

/**
 * Stores the team's cap in a PostgreSQL ledger (`off`: removes it), recorded in the audit trail under
 * `actor`. A SQLite ledger is refused: its file admits one run at a time, so there is no team to cap,
 * and a stored number would promise a bound nothing enforces (the run's --concurrency is its bound).
 */
export async function setTeamConcurrency(ledger: Ledger, value: string, options: { actor: Actor }): Promise<TeamCapSet> {
  const change = parseTeamCapChange(value);
  if (!change.ok) throw new UsageError(change.message);
  if (ledger.backend === 'sqlite') {
    throw new UsageError(
      `The ledger ${ledger.location} is a SQLite file, which admits one run at a time: there is no team to cap. ` +
        'Bound a run with --concurrency; a team shares a PostgreSQL ledger (docs/team.md), where ledger set team-concurrency caps every run on it.',
    );
  }
  const previous = parseTeamCap(await ledger.getSetting(TEAM_CAP_SETTING));
  if (change.cap === null) await ledger.removeSetting(TEAM_CAP_SETTING);
  else await ledger.setSetting(TEAM_CAP_SETTING, String(change.cap));
  const { name, via, address } = options.actor;
  const detail = `team-concurrency ${change.cap ?? 'off'} (was ${previous ?? 'off'})`;
  await ledger.audit.record({ actor: name, via, address, action: 'ledger_setting', detail });
  return { ledger: ledger.location, teamConcurrency: change.cap, previous };
}
