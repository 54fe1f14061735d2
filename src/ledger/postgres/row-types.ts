/**
 * How node-postgres hands this ledger its values: a timestamptz as the ISO 8601 UTC text the SQLite
 * ledger stores (to the millisecond, as JavaScript times are), and json/jsonb as their text. A row
 * then reads exactly as an SQLite row does, and the same mapping (order-row.ts, run-store.ts) makes
 * records of both. Given to each connection, so no other user of pg in the process is affected.
 */
import pg from 'pg';

const { builtins, getTypeParser } = pg.types;
const parseTimestamp = getTypeParser(builtins.TIMESTAMPTZ) as (text: string) => unknown;

/** A valid instant as ISO text; anything else (infinity) as PostgreSQL wrote it. */
function timestampText(text: string): string {
  const value = parseTimestamp(text);
  return value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : text;
}

export const ROW_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === builtins.TIMESTAMPTZ) return timestampText;
    if (oid === builtins.JSONB || oid === builtins.JSON) return (text: string) => text;
    return getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};
