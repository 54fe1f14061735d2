/** The two ends of a `ledger copy`: a SQLite ledger path in a temp folder and a new PostgreSQL database. */
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createDatabase, type TestDatabase } from '../support/postgres/database.js';
import { useTempFolders } from '../support/temp-dir.js';

export interface CopyEnds {
  /** A folder of the test's own, for more ledger files. */
  dir: string;
  /** `ledger.db` in that folder, not yet made. */
  sqlitePath: string;
  db: TestDatabase;
}

/** New ends before each test, the database dropped after it; filled in by the time a test or a later hook runs. */
export function useCopyEnds(): CopyEnds {
  const newFolder = useTempFolders('ledger-copy');
  const ends = {} as CopyEnds;
  beforeEach(async () => {
    ends.dir = newFolder();
    ends.sqlitePath = join(ends.dir, 'ledger.db');
    ends.db = await createDatabase();
  });
  afterEach(async () => {
    await ends.db.drop();
  });
  return ends;
}
