/** `ledger copy` on a PostgreSQL ledger: read in one REPEATABLE READ snapshot, or written in one transaction. */
import { toStoredToken, type StoredToken, type TokenRow } from '../token-types.js';
import pg from 'pg';
import { redactUrl } from '../../redact.js';
import { LedgerError } from '../errors.js';
import type { LedgerOptions, RunRecord } from '../types.js';
import { HOLDER_ALIVE } from '../postgres/claims.js';
import { classifyPostgresError } from '../postgres/errors.js';
import { openPostgresLedger } from '../postgres/postgres-ledger.js';
import { toRecord, type OrderRow } from '../order-row.js';
import { ROW_TYPES } from '../postgres/row-types.js';
import { toRun, type RunRow } from '../run-row.js';
import { MIGRATIONS, MIGRATIONS_TABLE } from '../postgres/schema.js';
import type { StoredUser } from '../team-types.js';
import { mappingsOfUnmigrated, toMapping, type MappingRow } from '../mapping-rows.js';
import { auditValues, toAudit, toUser, type AuditRow, type UserRow } from '../team-rows.js';
import { auditKey, withoutSeq } from './decide.js';
import { leasedKey, leasedRowOf, selectLeasedSql, upsertLeasedSql, type LeasedTable } from './leased-rows.js';
import { createPostgresMarketplace } from '../postgres/marketplace.js';
import type { TeamContext } from '../postgres/team-accounts.js';
import type { CopiedAudit, CopiedOrder, CopySource, CopyTarget, NamedValue, TargetOrder } from './types.js';


function toCopied(row: OrderRow): CopiedOrder {
  return { ...toRecord(row), payloadJson: row.payload, orderDate: row.order_date };
}

/** The copy's one connection (and its transaction) as the stores' context. */
function teamOn(client: pg.Client, guard: <T>(work: () => Promise<T>) => Promise<T>): TeamContext {
  const query = ((...args: unknown[]) => guard(() => (client.query as (...a: unknown[]) => Promise<unknown>)(...args))) as pg.Pool['query'];
  return { query, transaction: (work) => work(client), now: () => new Date() };
}

async function connect(url: string, location: string): Promise<{ client: pg.Client; guard: <T>(work: () => Promise<T>) => Promise<T> }> {
  const client = new pg.Client({ connectionString: url, application_name: 'order-batch ledger copy', types: ROW_TYPES });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw classifyPostgresError(error, location, 'open') ?? error;
  }
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw classifyPostgresError(error, location, 'run') ?? error;
    }
  };
  return { client, guard };
}

async function namedValues(client: pg.ClientBase, table: 'settings' | 'watermarks'): Promise<NamedValue[]> {
  const { rows } = await client.query<{ name: string; value: string; updated_at: string }>(`SELECT name, value, updated_at FROM ${table} ORDER BY name`);
  return rows.map((r) => ({ name: r.name, value: r.value, updatedAt: r.updated_at }));
}

async function hasTable(client: pg.ClientBase, name: string): Promise<boolean> {
  return (await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [name])).rows[0]!.present;
}

export async function openPostgresSource(url: string): Promise<CopySource> {
  const location = redactUrl(url);
  const { client, guard } = await connect(url, location);
  await guard(() => client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
  const { rows } = await guard(() => client.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [MIGRATIONS_TABLE]));
  const known = new Set(MIGRATIONS.map((m) => m.name));
  const unknown = rows[0]!.present ? (await guard(() => client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`))).rows.filter((r) => !known.has(r.name)) : [];
  if (!rows[0]!.present || unknown.length > 0) {
    await client.end();
    throw new LedgerError(location, rows[0]!.present ? `The ledger ${location} was written by a newer order-batch: upgrade order-batch to copy it.` : `The database ${location} holds no order-batch ledger: there is nothing to copy.`);
  }
  return {
    location,
    async *orders(batchSize) {
      let after = '';
      for (;;) {
        const page = await guard(() => client.query<OrderRow>('SELECT * FROM orders WHERE customer_order_id > $1 ORDER BY customer_order_id LIMIT $2', [after, batchSize]));
        if (page.rows.length > 0) yield page.rows.map(toCopied);
        if (page.rows.length < batchSize) return;
        after = page.rows.at(-1)!.customer_order_id;
      }
    },
    runs: () => guard(async () => (await client.query<RunRow>('SELECT * FROM runs ORDER BY seq')).rows.map(toRun)),
    settings: () => guard(async () => ((await hasTable(client, 'mappings')) ? namedValues(client, 'settings') : mappingsOfUnmigrated(await namedValues(client, 'settings')).settings)),
    watermarks: () => guard(() => namedValues(client, 'watermarks')),
    mappings: () =>
      guard(async () =>
        (await hasTable(client, 'mappings'))
          ? (await client.query<MappingRow>('SELECT * FROM mappings ORDER BY name')).rows.map(toMapping)
          : mappingsOfUnmigrated(await namedValues(client, 'settings')).mappings,
      ),
    marketplace: async () => ((await guard(() => hasTable(client, 'marketplace_lines'))) ? createPostgresMarketplace(teamOn(client, guard)) : null),
    // A ledger migrated before accounts existed has none, nor an audit trail.
    tokens: () => guard(async () => ((await hasTable(client, 'api_tokens')) ? (await client.query<TokenRow>('SELECT * FROM api_tokens ORDER BY label')).rows.map(toStoredToken) : [])),
    users: () => guard(async () => ((await hasTable(client, 'users')) ? (await client.query<UserRow>('SELECT * FROM users ORDER BY name')).rows.map(toUser) : [])),
    async *audit(batchSize) {
      if (!(await guard(() => hasTable(client, 'audit')))) return;
      for (let after = 0; ; ) {
        const { rows } = await guard(() => client.query<AuditRow>('SELECT * FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2', [after, batchSize]));
        if (rows.length > 0) yield rows.map((row) => withoutSeq(toAudit(row)));
        if (rows.length < batchSize) return;
        after = Number(rows.at(-1)!.seq);
      }
    },
    leasedRows: async (table) => ((await guard(() => hasTable(client, table.table))) ? readLeased(client, guard, table) : []),
    close: async () => {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

type Guard = <T>(work: () => Promise<T>) => Promise<T>;

async function readLeased(client: pg.Client, guard: Guard, table: LeasedTable) {
  return (await guard(() => client.query<Record<string, unknown>>(selectLeasedSql(table)))).rows.map((row) => leasedRowOf(table, row));
}

const ORDER_COLUMNS = `customer_order_id, payload_hash, payload, state, attempts, http_status, request_id, message, recorded_at,
  first_submitted_at, submitted_at, updated_at, run_id, source_file, source_sha256, source_rows, marketplace_order_id, source_of_sale, order_date`;

export async function openPostgresTarget(url: string, options: LedgerOptions): Promise<CopyTarget> {
  // Opening as a ledger creates or upgrades its schema (or refuses a database that is something else).
  await (await openPostgresLedger(url, { logger: options.logger })).close();
  const location = redactUrl(url);
  const { client, guard } = await connect(url, location);
  await guard(() => client.query('BEGIN'));
  const upsertNamed = async (table: 'settings' | 'watermarks', values: readonly NamedValue[]) => {
    if (values.length === 0) return;
    await guard(() =>
      client.query(
        `INSERT INTO ${table} (name, value, updated_at) SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[])
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [values.map((v) => v.name), values.map((v) => v.value), values.map((v) => v.updatedAt)],
      ),
    );
  };
  const readNamed = async (table: 'settings' | 'watermarks') => new Map((await guard(() => namedValues(client, table))).map((v) => [v.name, v]));
  return {
    location,
    async findOrders(ids) {
      const { rows } = await guard(() => client.query<OrderRow & { held: boolean }>(`SELECT o.*, ${HOLDER_ALIVE} AS held FROM orders o WHERE o.customer_order_id = ANY($1::text[])`, [ids]));
      return new Map<string, TargetOrder>(
        rows.map((row) => {
          const record = toRecord(row);
          return [record.customerOrderId, { payloadHash: record.payloadHash, state: record.state, updatedAt: record.updatedAt, isHeldByLiveRun: row.held, record }];
        }),
      );
    },
    writeOrders: (orders) => writeOrdersTo(client, guard, orders),
    runs: async () => new Map((await guard(() => client.query<RunRow>('SELECT * FROM runs'))).rows.map((row) => [row.run_id, toRun(row)])),
    async writeRuns(runs: readonly RunRecord[]) {
      for (const run of runs) {
        // One by one, oldest first: history's order is the order of insertion. Copied runs hold no lease.
        await guard(() =>
          client.query(
            `INSERT INTO runs (run_id, command, files, started_at, finished_at, summary, result_files, pid, host, lease_expires_at)
             VALUES ($1, $2, $3::jsonb, $4, $5, $6::jsonb, $7::jsonb, $8, $9, '-infinity')
             ON CONFLICT (run_id) DO UPDATE SET finished_at = excluded.finished_at, summary = excluded.summary, result_files = excluded.result_files`,
            [run.runId, run.command, JSON.stringify(run.files), run.startedAt, run.finishedAt, JSON.stringify(run.summary ?? null), JSON.stringify(run.resultFiles), run.pid, run.host],
          ),
        );
      }
    },
    settings: () => readNamed('settings'),
    writeSettings: (values) => upsertNamed('settings', values),
    watermarks: () => readNamed('watermarks'),
    writeWatermarks: (values) => upsertNamed('watermarks', values),
    ...teamWritersOn(client, guard),
    marketplace: createPostgresMarketplace(teamOn(client, guard)),
    leasedRows: async (table) => new Map((await readLeased(client, guard, table)).map((row) => [leasedKey(table, row), row])),
    async writeLeasedRows(table, rows) {
      for (const row of rows) await guard(() => client.query(upsertLeasedSql(table, (i) => `$${i}`), table.columns.map((c) => row[c])));
    },
    async commit() {
      await guard(() => client.query('COMMIT'));
      await client.end();
    },
    async rollback() {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/** Inserts new records and replaces existing ones, in one statement per batch. */
async function writeOrdersTo(client: pg.Client, guard: Guard, orders: readonly CopiedOrder[]): Promise<void> {
    if (orders.length === 0) return;
    const column = <T>(pick: (o: CopiedOrder) => T) => orders.map(pick);
    await guard(() =>
      client.query(
        `INSERT INTO orders (${ORDER_COLUMNS})
         SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16::jsonb, c17, c18, c19
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[], $9::timestamptz[],
           $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
           $18::text[], $19::timestamptz[]) AS v(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19)
         ON CONFLICT (customer_order_id) DO UPDATE SET ${ORDER_COLUMNS.split(',').map((c) => `${c.trim()} = excluded.${c.trim()}`).join(', ')}`,
        [
          column((o) => o.customerOrderId),
          column((o) => o.payloadHash),
          column((o) => o.payloadJson),
          column((o) => o.state),
          column((o) => o.attempts),
          column((o) => o.httpStatus),
          column((o) => o.requestId),
          column((o) => o.message),
          column((o) => o.recordedAt),
          column((o) => o.firstSubmittedAt),
          column((o) => o.submittedAt),
          column((o) => o.updatedAt),
          column((o) => o.runId),
          column((o) => o.sourceFile),
          column((o) => o.sourceSha256),
          column((o) => JSON.stringify(o.sourceRows)),
          column((o) => o.marketplaceOrderId),
          column((o) => o.sourceOfSale),
          column((o) => o.orderDate),
        ],
      ),
    );
}

/** The target's accounts, API tokens, audit trail and mappings, on the copy's connection. */
function teamWritersOn(client: pg.Client, guard: Guard): Pick<CopyTarget, 'users' | 'writeUsers' | 'tokenLabels' | 'writeTokens' | 'auditKeys' | 'writeAudit' | 'mappings' | 'writeMappings'> {
  // One statement a row, each under the copy's guard.
  const writeEach = async <T>(rows: readonly T[], sql: string, values: (row: T) => unknown[]): Promise<void> => {
    for (const row of rows) await guard(() => client.query(sql, values(row)));
  };
  return {
    users: async () => new Map((await guard(() => client.query<UserRow>('SELECT * FROM users'))).rows.map((row) => [row.name, toUser(row)])),
    writeUsers: (users: readonly StoredUser[]) =>
      writeEach(
        users,
        'INSERT INTO users (name, role, password_hash, is_disabled, created_at, updated_at, email) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING',
        (u) => [u.name, u.role, u.passwordHash, u.isDisabled, u.createdAt, u.updatedAt, u.email],
      ),
    tokenLabels: async () => new Set((await guard(() => client.query<{ label: string }>('SELECT label FROM api_tokens'))).rows.map((row) => row.label)),
    writeTokens: (tokens: readonly StoredToken[]) =>
      writeEach(
        tokens,
        'INSERT INTO api_tokens (label, token_hash, user_name, created_by, created_at, expires_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING',
        (t) => [t.label, t.tokenHash, t.userName, t.createdBy, t.createdAt, t.expiresAt, t.lastUsedAt],
      ),
    auditKeys: async () => new Set((await guard(() => client.query<AuditRow>('SELECT * FROM audit'))).rows.map((row) => auditKey(withoutSeq(toAudit(row))))),
    writeAudit: (entries: readonly CopiedAudit[]) =>
      writeEach(
        entries,
        'INSERT INTO audit (at, actor, via, address, action, file_name, file_sha256, counts, ref, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)',
        (e) => auditValues(e, new Date(e.at)),
      ),
    mappings: async () => new Map((await guard(() => client.query<MappingRow>('SELECT * FROM mappings'))).rows.map((row) => [row.name, toMapping(row)])),
    writeMappings: (mappings) =>
      writeEach(
        mappings,
        `INSERT INTO mappings (name, profile, saved_by, saved_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (name) DO UPDATE SET profile = excluded.profile, saved_by = excluded.saved_by, saved_at = excluded.saved_at`,
        (m) => [m.name, m.profile, m.savedBy, m.savedAt],
      ),
  };
}
