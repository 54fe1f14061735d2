/**
 * Opening an SQLite database with better-sqlite3 so that Node 24 cannot abort the process.
 *
 * On Node 24, better-sqlite3 12 kills the process (SIGABRT, "Assertion failed: (env) != nullptr"
 * in RemoveEnvironmentCleanupHook) when the garbage collector finalises one of its statements or
 * databases outside JavaScript, e.g. in an idle-time collection (WiseLibs/better-sqlite3#1515,
 * closed without a fix). better-sqlite3 13 fixes it but needs Node >= 22, and this tool runs on
 * Node 20. So on Node 24 and later nothing of better-sqlite3 is ever left to the collector: every
 * database opened here and every statement prepared on it (with its iterators) stays referenced
 * until the process ends, a few kilobytes per opened database. Pragmas go through exec() or
 * readPragma(), because db.pragma() makes a statement this module cannot see.
 */
import Database from 'better-sqlite3';

const KEEPS_EVERYTHING = Number(process.versions.node.split('.')[0]) >= 24;
const kept: object[] = [];

export function openDatabase(path: string, options?: Database.Options): Database.Database {
  const db = new Database(path, options);
  if (!KEEPS_EVERYTHING) return db;
  kept.push(db);
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    kept.push(statement);
    const iterate = statement.iterate.bind(statement);
    statement.iterate = ((...parameters: unknown[]) => {
      const iterator = iterate(...parameters);
      kept.push(iterator);
      return iterator;
    }) as typeof statement.iterate;
    return statement;
  }) as typeof db.prepare;
  return db;
}

/** The value of a pragma (e.g. user_version), read through a statement openDatabase keeps. */
export function readPragma(db: Database.Database, name: string): unknown {
  return db.prepare(`PRAGMA ${name}`).pluck().get();
}

/**
 * Statements prepared once per SQL text and reused: a server that runs for weeks prepares each of its
 * statements once, not once per request (on Node 24 every statement prepared stays in memory, above).
 * A statement switched to pluck() stays so: one text is used one way.
 */
export function preparedOnce(db: Database.Database): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
}
