/**
 * Remote inputs made local: each remote sheet (or the sheets of a remote folder) that has settled,
 * and that no run of the ledger has processed in this version, is claimed and downloaded into the
 * host's work folder whole (a temp name, renamed once its byte count matches). Local arguments pass
 * through as they are.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { whyNotOrderSheet } from '../sheet/sheet-files.js';
import type { ClaimStore } from './claims.js';
import { childText, isRemote, parseRemoteLocation, RemoteError, type RemoteLocation } from './location.js';
import { fetchHttp, type OpenStore } from './stores/open-store.js';
import { DOWNLOAD_ATTEMPTS, isAheadOfClock, msAheadOf, retryDelayMs, versionOf, whyWaiting, type SettleClock } from './settle.js';
import type { RemoteEntry, RemoteStore } from './stores/store.js';

/** A remote file read into the work folder for this run. */
export interface StagedFile {
  /** The location as shown (redacted). */
  location: string;
  version: string;
  localFile: string;
  /** Its store and path, to put its result beside it or move it; absent for https://. */
  store?: RemoteStore;
  remotePath?: string;
  /** Whether this run holds a claim on it (import). */
  isClaimed: boolean;
}

/** A remote file left for a later run, and why. */
export interface WaitingFile {
  location: string;
  reason: string;
}

export interface StageDeps {
  openStore: OpenStore;
  /** import: claims in the ledger; validate reads without claiming. */
  claims?: ClaimStore;
  workDir: string;
  settleSeconds: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface StagedInputs {
  /** The arguments for the command: local ones as given, remote ones as their local copies. */
  files: string[];
  staged: StagedFile[];
  waiting: WaitingFile[];
  /** Remote files that could not be read (after retries), one line each. */
  failures: WaitingFile[];
  /** Remote files already processed in this version, or being processed by another run. */
  taken: string[];
  /** What the run should know of how the folders were read (a server whose clock runs ahead), one line each. */
  notes: string[];
}

/** Remote files read at once from one folder. */
const FILES_AT_ONCE = 8;

async function mapWithLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function isSheetName(name: string): boolean {
  // A .txt file is taken as a sheet here; the reader says why if it is not one.
  return whyNotOrderSheet('', name) === null;
}

/** Reads every argument; a location that cannot be read at all throws a RemoteError (exit 2). */
export async function stageInputs(args: readonly string[], deps: StageDeps): Promise<StagedInputs> {
  const result: StagedInputs = { files: [], staged: [], waiting: [], failures: [], taken: [], notes: [] };
  for (const arg of args) {
    if (!isRemote(arg)) {
      result.files.push(arg);
      continue;
    }
    const location = parseRemoteLocation(arg);
    if (location.kind === 'http') {
      await stageHttp(location, deps, result);
      continue;
    }
    const store = await deps.openStore(location);
    const path = location.kind === 'sftp' ? location.path : location.key;
    const firstLookAt = deps.now();
    let entries: RemoteEntry[];
    if (location.isFolder) {
      entries = (await store.list(path)).filter((e) => isSheetName(e.name));
    } else {
      const entry = await store.stat(path);
      if (entry === null) throw new RemoteError(location.shown, 'no such file.');
      entries = [entry];
    }
    await watchFilesAhead(location.shown, store, entries, deps, result);
    const watchedMs = deps.now() - firstLookAt;
    // Several files at once: a thousand small sheets are round trips, not bytes. Kept in name order.
    const parts = await mapWithLimit(entries, FILES_AT_ONCE, async (entry) => {
      const part: StagedInputs = { files: [], staged: [], waiting: [], failures: [], taken: [], notes: [] };
      await stageEntry(location, store, entry, deps, part, watchedMs);
      return part;
    });
    for (const part of parts) {
      result.files.push(...part.files);
      result.staged.push(...part.staged);
      result.waiting.push(...part.waiting);
      result.failures.push(...part.failures);
      result.taken.push(...part.taken);
    }
  }
  return result;
}

function clockOf(store: RemoteStore, deps: StageDeps): SettleClock {
  const serverOffsetMs = store.serverClockOffsetMs?.();
  return { nowMs: deps.now(), ...(serverOffsetMs !== undefined ? { serverOffsetMs } : {}) };
}

/**
 * Files stamped ahead of the clock have no age to judge: the folder is watched once for the settle
 * window (one wait, however many such files), so that the second look can tell whether they held still.
 */
async function watchFilesAhead(shown: string, store: RemoteStore, entries: readonly RemoteEntry[], deps: StageDeps, result: StagedInputs): Promise<void> {
  const clock = clockOf(store, deps);
  const ahead = entries.filter((e) => isAheadOfClock(e, clock));
  if (ahead.length === 0) return;
  const mostMs = Math.max(...ahead.map((e) => msAheadOf(e, clock)));
  const whose = clock.serverOffsetMs === undefined ? "this host's clock: the server's clock runs ahead" : "the server's own clock";
  result.notes.push(`${shown}: ${ahead.length} file${ahead.length === 1 ? ' is' : 's are'} stamped up to ${Math.round(mostMs / 1000)} s ahead of ${whose}; they are read once they have kept their size and time for --settle ${deps.settleSeconds} s (this run waited that long).`);
  await deps.sleep(deps.settleSeconds * 1000);
}

async function stageHttp(location: Extract<RemoteLocation, { kind: 'http' }>, deps: StageDeps, result: StagedInputs): Promise<void> {
  const folder = newStagingFolder(deps.workDir);
  const name = decodeURIComponent(new URL(location.url).pathname.split('/').pop() || 'sheet.csv');
  const localFile = join(folder, name);
  const { version } = await fetchHttp(location, localFile);
  if (deps.claims && !(await deps.claims.claim(location.shown, version))) {
    rmSync(folder, { recursive: true, force: true });
    result.taken.push(location.shown);
    return;
  }
  result.files.push(localFile);
  result.staged.push({ location: location.shown, version, localFile, isClaimed: deps.claims !== undefined });
}

async function stageEntry(location: Exclude<RemoteLocation, { kind: 'http' }>, store: RemoteStore, first: RemoteEntry, deps: StageDeps, result: StagedInputs, watchedMs: number): Promise<void> {
  const shown = location.isFolder ? childText(location, first.name) : location.shown;
  // The second look: a file still being written changes size or time between the two.
  const second = await store.stat(first.path);
  const waiting = whyWaiting(first, second, clockOf(store, deps), deps.settleSeconds, watchedMs);
  if (waiting !== null || second === null) {
    result.waiting.push({ location: shown, reason: waiting ?? 'it disappeared' });
    return;
  }
  const version = versionOf(second);
  if (deps.claims && !(await deps.claims.claim(shown, version))) {
    result.taken.push(shown);
    return;
  }
  const folder = newStagingFolder(deps.workDir);
  const localFile = join(folder, second.name);
  const failure = await downloadWhole(store, second, localFile, deps);
  // A third look: a file rewritten in place while it was read is not this version any more.
  const third = failure === null ? await store.stat(second.path) : second;
  const changed = failure === null && (third === null || versionOf(third) !== version);
  if (failure !== null || changed) {
    rmSync(folder, { recursive: true, force: true });
    // A broken download is tried again next run; a changed file comes back as a new version.
    await deps.claims?.finish(shown, version, failure !== null ? 'retry' : 'done', failure ?? 'changed while it was read');
    if (failure !== null) result.failures.push({ location: shown, reason: failure });
    else result.waiting.push({ location: shown, reason: 'it changed while it was being read' });
    return;
  }
  result.files.push(localFile);
  result.staged.push({ location: shown, version, localFile, store, remotePath: second.path, isClaimed: deps.claims !== undefined });
}

/** Downloads to a temp name and renames only when the byte count matches; retries with backoff. Returns null, or why it failed. */
async function downloadWhole(store: RemoteStore, entry: RemoteEntry, localFile: string, deps: StageDeps): Promise<string | null> {
  const temp = `${localFile}.part`;
  let why = '';
  for (let attempt = 1; attempt <= DOWNLOAD_ATTEMPTS; attempt++) {
    if (attempt > 1) await deps.sleep(retryDelayMs(attempt));
    try {
      const bytes = await store.download(entry.path, temp);
      if (bytes === entry.size) {
        renameSync(temp, localFile);
        return null;
      }
      why = `the download broke off (${bytes} of ${entry.size} bytes)`;
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      why = error.message.slice(error.message.indexOf(': ') + 2).replace(/\.$/, '');
    }
    rmSync(temp, { force: true });
  }
  return `it could not be read whole after ${DOWNLOAD_ATTEMPTS} attempts (${why}); the next run tries again`;
}

/** A folder of its own per remote file: two files of one name from two places never meet. */
export function newStagingFolder(workDir: string): string {
  const folder = join(workDir, randomBytes(8).toString('hex'));
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}
