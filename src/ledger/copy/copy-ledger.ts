/**
 * `order-batch ledger copy <from> <to>`: moves a ledger between SQLite and PostgreSQL (either way,
 * or between two of a kind). The source is read in one snapshot and never altered; the target is
 * written in one transaction, so a copy that stops (a conflict, a lost connection) leaves it as it
 * was. Copying again changes nothing: see decide.ts for what wins when both sides hold a record.
 *
 * What moves: orders, runs, settings, watermarks, the web app's accounts and API tokens, the audit trail, the saved
 * column mappings, the remote file claims and the schedule occurrences: what the ledger knows and owes (never
 * send twice, who did what, how sheets are read, which remote sheets were processed, which occurrences ran).
 * What stays: sessions, jobs and their files. A session is a login to the instances of the source's
 * web app, soon idle; carried over it would let a browser into another database it never logged in to.
 * A queued or running job belongs to the source's instances: copied, it would be run a second time by
 * the target's. A finished job's uploads and results are bulky workbooks kept 90 days: the orders, runs
 * and audit entries that record the same work (file names and hashes, counts) move, the files do not.
 */
import { UsageError } from '../../errors.js';
import { redactUrl } from '../../redact.js';
import { parseLedgerLocation } from '../location.js';
import type { LedgerOptions } from '../types.js';
import { auditKey, decideLeased, decideMapping, decideOrder, decideRun, decideSetting, decideUser, decideWatermark, type CopyAction } from './decide.js';
import type { CopySource, CopyTarget } from './types.js';
import { leasedKey, REMOTE_FILES, SCHEDULE_OCCURRENCES, type LeasedTable } from './leased-rows.js';

export type CopyCounts = Record<CopyAction, number>;

export interface CopyResult {
  from: string;
  to: string;
  orders: CopyCounts;
  runs: CopyCounts;
  settings: CopyCounts;
  watermarks: CopyCounts;
  users: CopyCounts;
  /** API tokens: a label the target has stays as it is there. */
  tokens: CopyCounts;
  audit: CopyCounts;
  mappings: CopyCounts;
  /** Marketplace lines and written confirmations carried over (replacing, or kept, as each store does). */
  marketplace: { lines: number; confirmations: number };
  /** Remote file claims: one processed on the source is not processed again on the target. */
  remoteFiles: CopyCounts;
  /** Schedule occurrences: one that ran (or was missed) on the source does not run again on the target. */
  occurrences: CopyCounts;
}

const BATCH = 1000;

/** The copy met a record it must not overwrite: nothing was written. */
export class CopyConflictError extends UsageError {}

function counts(): CopyCounts {
  return { insert: 0, update: 0, unchanged: 0, kept: 0 };
}

async function openSide(location: string, role: 'source' | 'target', options: LedgerOptions): Promise<CopySource | CopyTarget> {
  const where = parseLedgerLocation(location);
  if (where.backend === 'sqlite') {
    const side = await import('./sqlite-side.js');
    return role === 'source' ? side.openSqliteSource(where.path) : side.openSqliteTarget(where.path, options);
  }
  const side = await import('./postgres-side.js');
  return role === 'source' ? side.openPostgresSource(where.url) : side.openPostgresTarget(where.url, options);
}

export async function copyLedger(from: string, to: string, options: LedgerOptions = {}): Promise<CopyResult> {
  if (from === to) throw new UsageError(`The source and the target of the copy are the same ledger (${redactUrl(from)}).`);
  const source = (await openSide(from, 'source', options)) as CopySource;
  let target: CopyTarget;
  try {
    target = (await openSide(to, 'target', options)) as CopyTarget;
  } catch (error) {
    await source.close();
    throw error;
  }
  const result: CopyResult = { from: source.location, to: target.location, orders: counts(), runs: counts(), settings: counts(), watermarks: counts(), users: counts(), tokens: counts(), audit: counts(), mappings: counts(), marketplace: { lines: 0, confirmations: 0 }, remoteFiles: counts(), occurrences: counts() };
  const refuse = (why: string): never => {
    throw new CopyConflictError(`Cannot copy the ledger ${source.location} into ${target.location}: ${why}. Nothing was copied.`);
  };
  const unlessConflict = (decision: CopyAction | { conflict: string }): CopyAction => (typeof decision === 'object' ? refuse(decision.conflict) : decision);
  try {
    // Settings first: a target that records orders for another API stops the copy before any order.
    const targetSettings = await target.settings();
    const settings = (await source.settings()).map((s) => ({ ...s, value: redactUrl(s.value) }));
    await target.writeSettings(rowsToWrite(settings, result.settings, (s) => unlessConflict(decideSetting(s, targetSettings.get(s.name)))));

    // Runs before orders: an order names the run that last worked on it.
    const targetRuns = await target.runs();
    await target.writeRuns(rowsToWrite(await source.runs(), result.runs, (run) => decideRun(run, targetRuns.get(run.runId))));

    for await (const batch of source.orders(BATCH)) {
      const found = await target.findOrders(batch.map((o) => o.customerOrderId));
      await target.writeOrders(rowsToWrite(batch, result.orders, (order) => unlessConflict(decideOrder(order, found.get(order.customerOrderId)))));
    }

    const targetMarks = await target.watermarks();
    await target.writeWatermarks(rowsToWrite(await source.watermarks(), result.watermarks, (mark) => decideWatermark(mark, targetMarks.get(mark.name))));

    // The web app's accounts and who did what: an account the target has stays as it is there.
    const targetUsers = await target.users();
    const emailOwners = new Map([...targetUsers.values()].filter((u) => u.email).map((u) => [u.email!, u.name]));
    await target.writeUsers(rowsToWrite(await source.users(), result.users, (user) => {
      const action = decideUser(user, targetUsers.get(user.name));
      const owner = user.email ? emailOwners.get(user.email) : undefined;
      if (action === 'insert' && owner) refuse(`the e-mail address ${user.email} is the account ${owner}'s in the target and ${user.name}'s in the source (an address is one account's): change one of them with order-batch users set-email`);
      return action;
    }));
    // API tokens move with their accounts, as passwords do: an integration keeps working on the new ledger.
    const targetTokens = await target.tokenLabels();
    await target.writeTokens(rowsToWrite(await source.tokens(), result.tokens, (token) => (targetTokens.has(token.label) ? 'unchanged' : 'insert')));
    const known = await target.auditKeys();
    for await (const batch of source.audit(BATCH)) {
      await target.writeAudit(rowsToWrite(batch, result.audit, (entry) => (known.has(auditKey(entry)) ? 'unchanged' : 'insert')));
    }
    const targetMappings = await target.mappings();
    await target.writeMappings(rowsToWrite(await source.mappings(), result.mappings, (mapping) => decideMapping(mapping, targetMappings.get(mapping.name))));
    const marketplace = await source.marketplace();
    if (marketplace) {
      for await (const batch of marketplace.allLines(BATCH)) {
        await target.marketplace.recordLines(batch);
        result.marketplace.lines += batch.length;
      }
      for await (const batch of marketplace.allWritten(BATCH)) {
        await target.marketplace.recordWritten(batch);
        result.marketplace.confirmations += batch.length;
      }
    }
    await copyLeased(source, target, REMOTE_FILES, result.remoteFiles);
    await copyLeased(source, target, SCHEDULE_OCCURRENCES, result.occurrences);
    await target.commit();
    return result;
  } catch (error) {
    await target.rollback();
    throw error;
  } finally {
    await source.close();
  }
}

async function copyLeased(source: CopySource, target: CopyTarget, table: LeasedTable, tally: CopyCounts): Promise<void> {
  const held = await target.leasedRows(table);
  await target.writeLeasedRows(table, rowsToWrite(await source.leasedRows(table), tally, (row) => decideLeased(table, row, held.get(leasedKey(table, row)))));
}

/** Each row's action counted in `tally`; the rows the target is to write (inserted or updated) kept, the others left as the target has them. */
function rowsToWrite<T>(rows: readonly T[], tally: CopyCounts, decide: (row: T) => CopyAction): T[] {
  return rows.filter((row) => {
    const action = decide(row);
    tally[action]++;
    return action === 'insert' || action === 'update';
  });
}
