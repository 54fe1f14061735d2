/**
 * Bringing a PostgreSQL ledger's schema up to date when it is opened. Several processes may open a
 * new or older ledger at once: one migrates, under a transaction-scoped advisory lock, while the
 * others wait on that lock and then find nothing left to do. DDL is transactional in PostgreSQL, so a
 * migration killed halfway leaves the previous version whole.
 *
 * The runner is umzug (a custom storage: the applied names in MIGRATIONS_TABLE) rather than one
 * written here: it orders, runs and records the migrations, and can serve the SQLite ledger alike.
 * It is loaded only when something is pending; an open of a current ledger is one query.
 */
import type pg from 'pg';
import type { Logger } from '../../log.js';
import { MIGRATIONS, MIGRATIONS_TABLE, type PostgresMigration } from './schema.js';

/** First key of the advisory lock (the second is the schema's name hashed): "order-batch ledger". */
const LOCK_CLASS = 0x0b1ed6e5;

/** A database that must not be touched: its schema holds tables that are not an order-batch ledger. */
export class ForeignDatabaseError extends Error {
  override readonly name = 'ForeignDatabaseError';
  constructor(
    readonly schema: string,
    readonly tables: readonly string[],
  ) {
    super(`schema "${schema}" holds other tables (${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', ...' : ''})`);
  }
}

/** The ledger was migrated by a newer order-batch: this one does not know its last versions. */
export class PostgresSchemaTooNewError extends Error {
  override readonly name = 'PostgresSchemaTooNewError';
  constructor(readonly unknown: readonly string[]) {
    super(`schema versions ${unknown.join(', ')} are newer than this order-batch knows (up to ${MIGRATIONS.at(-1)!.name}); upgrade order-batch`);
  }
}

interface SchemaState {
  schema: string;
  applied: string[] | null;
  otherTables: string[];
}

async function readSchemaState(client: pg.ClientBase): Promise<SchemaState> {
  const { rows } = await client.query<{ schema: string | null; tables: string[] | null }>(
    `SELECT current_schema() AS schema,
       (SELECT array_agg(c.relname::text ORDER BY c.relname) FROM pg_class c
         WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) AS tables`,
  );
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('no schema to create the ledger in: the search_path names none that exists');
  const tables = rows[0]?.tables ?? [];
  if (!tables.includes(MIGRATIONS_TABLE)) return { schema, applied: null, otherTables: tables };
  const applied = await client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY name`);
  return { schema, applied: applied.rows.map((r) => r.name), otherTables: [] };
}

/** What is left to apply; throws when the database is not a ledger or is newer than this code. */
function pendingOf(state: SchemaState, migrations: readonly PostgresMigration[]): PostgresMigration[] {
  if (state.applied === null && state.otherTables.length > 0) throw new ForeignDatabaseError(state.schema, state.otherTables);
  const applied = new Set(state.applied ?? []);
  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...applied].filter((name) => !known.has(name));
  if (unknown.length > 0) throw new PostgresSchemaTooNewError(unknown);
  return migrations.filter((m) => !applied.has(m.name));
}

/** Applies what is pending (returns the names applied; empty when the ledger was current). */
export async function migrateLedger(client: pg.ClientBase, logger: Logger, migrations: readonly PostgresMigration[] = MIGRATIONS): Promise<string[]> {
  const first = await readSchemaState(client);
  if (pendingOf(first, migrations).length === 0) return [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [LOCK_CLASS]);
    // Read again under the lock: whoever held it before may have done it all.
    const state = await readSchemaState(client);
    const pending = pendingOf(state, migrations);
    if (pending.length > 0 && state.applied === null) {
      logger.info({ schema: state.schema }, 'creating the order-batch ledger in an empty PostgreSQL schema');
      await client.query(`CREATE TABLE ${MIGRATIONS_TABLE} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    } else if (pending.length > 0) {
      logger.info({ schema: state.schema, versions: pending.map((m) => m.name) }, 'upgrading the ledger to this version of order-batch');
    }
    const applied = await runMigrations(client, pending);
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function runMigrations(client: pg.ClientBase, pending: readonly PostgresMigration[]): Promise<string[]> {
  if (pending.length === 0) return [];
  const { Umzug } = await import('umzug');
  const applied: string[] = [];
  const umzug = new Umzug({
    migrations: pending.map((m) => ({ name: m.name, up: async () => {
      await client.query(m.sql);
      await m.after?.(client);
    } })),
    context: {},
    logger: undefined,
    storage: {
      executed: async () => (await client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`)).rows.map((r) => r.name),
      logMigration: async ({ name }) => {
        await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (name) VALUES ($1)`, [name]);
        applied.push(name);
      },
      unlogMigration: () => Promise.reject(new Error('the ledger schema only moves forward')),
    },
  });
  await umzug.up();
  return applied;
}
