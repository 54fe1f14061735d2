/** What `ledger copy` moves between backends, and how each side reads or writes it. */
import type { StoredToken } from '../token-types.js';
import type { AuditRecord, StoredMapping, StoredUser } from '../team-types.js';
import type { OrderRecord, RunRecord } from '../types.js';
import type { MarketplaceStore } from '../marketplace-types.js';
import type { LeasedRow, LeasedTable } from './leased-rows.js';

/** An audit entry as copied: its place in the trail (seq) is the target's. */
export type CopiedAudit = Omit<AuditRecord, 'seq'>;

/** An order with every column the ledgers keep (orderDate: the payload's, as an ISO instant; null when none). */
export interface CopiedOrder extends OrderRecord {
  /** The payload's JSON text as recorded (the very text that was POSTed). */
  payloadJson: string;
  orderDate: string | null;
}

export interface NamedValue {
  name: string;
  value: string;
  updatedAt: string;
}

/** How an order stands in the target, for deciding what the copy does with it. */
export interface TargetOrder {
  payloadHash: string;
  state: OrderRecord['state'];
  updatedAt: string;
  /** A run that is alive holds it (PostgreSQL): the copy leaves live work alone. */
  isHeldByLiveRun: boolean;
  record: OrderRecord;
}

/** A ledger read as it is, in one consistent snapshot, never altered. */
export interface CopySource {
  readonly location: string;
  /** Every order, in customerOrderId order, in batches. */
  orders(batchSize: number): AsyncGenerator<CopiedOrder[]>;
  runs(): Promise<RunRecord[]>;
  /** (A ledger older than the mappings table: without the legacy setting its mappings() carries.) */
  settings(): Promise<NamedValue[]>;
  watermarks(): Promise<NamedValue[]>;
  /** The web app's accounts (none in a ledger older than them). */
  users(): Promise<StoredUser[]>;
  /** The API tokens (by hash; none in a ledger older than them). */
  tokens(): Promise<StoredToken[]>;
  /** The audit trail, oldest first, in batches. */
  audit(batchSize: number): AsyncGenerator<CopiedAudit[]>;
  /** The saved column mappings (a ledger older than their table: those its legacy setting holds). */
  mappings(): Promise<StoredMapping[]>;
  /** Marketplace lines and written confirmations (null: a ledger older than their tables). */
  marketplace(): Promise<Pick<MarketplaceStore, 'allLines' | 'allWritten'> | null>;
  /** Remote file claims or schedule occurrences (none in a ledger older than their table). */
  leasedRows(table: LeasedTable): Promise<LeasedRow[]>;
  close(): Promise<void>;
}

/** A ledger written in one transaction: all of the copy, or (rollback) none of it. */
export interface CopyTarget {
  readonly location: string;
  findOrders(ids: readonly string[]): Promise<Map<string, TargetOrder>>;
  /** Inserts new records and replaces existing ones (same ids) with these. */
  writeOrders(orders: readonly CopiedOrder[]): Promise<void>;
  runs(): Promise<Map<string, RunRecord>>;
  writeRuns(runs: readonly RunRecord[]): Promise<void>;
  settings(): Promise<Map<string, NamedValue>>;
  writeSettings(values: readonly NamedValue[]): Promise<void>;
  watermarks(): Promise<Map<string, NamedValue>>;
  writeWatermarks(values: readonly NamedValue[]): Promise<void>;
  users(): Promise<Map<string, StoredUser>>;
  writeUsers(users: readonly StoredUser[]): Promise<void>;
  /** The labels of the API tokens the target holds. */
  tokenLabels(): Promise<Set<string>>;
  writeTokens(tokens: readonly StoredToken[]): Promise<void>;
  /** Keys (auditKey) of the entries the target's trail holds. */
  auditKeys(): Promise<Set<string>>;
  writeAudit(entries: readonly CopiedAudit[]): Promise<void>;
  mappings(): Promise<Map<string, StoredMapping>>;
  /** Inserts new mappings and replaces those of the same names. */
  writeMappings(mappings: readonly StoredMapping[]): Promise<void>;
  /** Lines replace those of the same order line; a written confirmation the target has stays. */
  readonly marketplace: Pick<MarketplaceStore, 'recordLines' | 'recordWritten'>;
  /** The target's rows of the table, by leasedKey. */
  leasedRows(table: LeasedTable): Promise<Map<string, LeasedRow>>;
  /** Inserts new rows and replaces those of the same keys. */
  writeLeasedRows(table: LeasedTable, rows: readonly LeasedRow[]): Promise<void>;
  commit(): Promise<void>;
  /** Undoes everything written (safe after a failure) and closes. */
  rollback(): Promise<void>;
}
