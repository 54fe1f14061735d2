/**
 * Uploads, results and reconciliations are kept in the ledger (ledger/team-types.ts FileStore), so
 * every instance of the web app that shares the ledger serves the same ones, with no folder to share
 * between hosts. Each instance works on a local copy in its work folder: what it writes there it
 * publishes to the ledger; what another instance wrote it fetches on first use. Retention removes
 * both: the ledger's pieces and every instance's copy.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileStore, FileUsage } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { isId, PRIVATE_FILE_MODE, type Area, type WorkDir } from './work-dir.js';

export interface SharedFiles {
  /** Copies the files of one upload, job or reconciliation from the work folder into the ledger. */
  publish(area: Area, id: string): Promise<void>;
  /** Makes sure the work folder holds what the ledger has of it (fetched when another instance made it). */
  fetch(area: Area, id: string): Promise<boolean>;
  /** The newest owners of an area in the ledger (e.g. the latest reconciliations). */
  newest(area: Area, limit: number): Promise<string[]>;
  usage(): Promise<FileUsage>;
  /** Removes everything created before `cutoff`, in the ledger and in the work folder; says what it freed. */
  removeOlderThan(cutoff: Date): Promise<{ files: number; bytes: number }>;
}

const SHARED_AREAS: readonly Area[] = ['uploads', 'jobs', 'reconcile'];
/** How old (by this machine's clock) a local copy must be before it is removed for not being in the ledger. */
const LOCAL_GRACE_MS = 86_400_000;

export function createSharedFiles(store: FileStore, workDir: WorkDir, logger: Logger): SharedFiles {
  return {
    async publish(area, id) {
      const dir = join(workDir.root, area, id);
      if (!existsSync(dir)) return;
      for (const name of readdirSync(dir)) {
        if (name.endsWith('.tmp') || name.endsWith('.partial')) continue;
        const file = join(dir, name);
        if (!statSync(file).isFile()) continue;
        // The shared command functions write their workbooks as any file: here they are this user's alone.
        chmodSync(file, PRIVATE_FILE_MODE);
        await store.put({ area, owner: id, name, data: readFileSync(file) });
      }
    },
    async fetch(area, id) {
      if (!isId(id)) return false;
      const dir = join(workDir.root, area, id);
      const stored = await store.list(area, id);
      if (stored.length === 0) return existsSync(dir);
      const local = existsSync(dir) ? new Set(readdirSync(dir)) : new Set<string>();
      const missing = stored.filter((file) => !local.has(file.name));
      if (missing.length === 0) return true;
      workDir.dirOf(area, id);
      for (const file of missing) {
        const pieces = await store.read(area, id, file.name);
        if (!pieces) continue;
        const chunks: Uint8Array[] = [];
        for await (const piece of pieces) chunks.push(piece);
        // Write then rename: a reader never meets half a file.
        const target = join(dir, file.name);
        writeFileSync(`${target}.tmp`, Buffer.concat(chunks), { mode: PRIVATE_FILE_MODE });
        renameSync(`${target}.tmp`, target);
      }
      logger.debug({ area, id, files: missing.length }, 'fetched from the ledger');
      return true;
    },
    newest: (area, limit) => store.newestOwners(area, limit),
    usage: () => store.usage(),
    async removeOlderThan(cutoff) {
      const removed = await store.removeOlderThan(cutoff.toISOString());
      for (const { area, owner } of removed.owners) if (isId(owner)) rmSync(join(workDir.root, area, owner), { recursive: true, force: true });
      // Copies this instance kept of what another instance's housekeeping already removed from the
      // ledger (a day old at least here: what is being checked right now is not in the ledger yet).
      for (const area of SHARED_AREAS) {
        const root = join(workDir.root, area);
        if (!existsSync(root)) continue;
        for (const id of readdirSync(root)) {
          const dir = join(root, id);
          if (!isId(id) || Date.now() - statSync(dir).mtimeMs < LOCAL_GRACE_MS) continue;
          if ((await store.list(area, id)).length === 0) rmSync(dir, { recursive: true, force: true });
        }
      }
      if (removed.files > 0) logger.info({ files: removed.files, bytes: removed.bytes, before: cutoff.toISOString() }, 'removed uploads and results past their retention');
      return { files: removed.files, bytes: removed.bytes };
    },
  };
}
