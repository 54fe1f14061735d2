/**
 * After the run: results put where they are picked up, settled sheets moved to a remote archive,
 * claims settled, and the report made to name remote files by their locations rather than by the
 * work folder's copies.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { JsonOutputError, JsonReport } from '../run-report/json.js';
import type { ClaimEnd, ClaimStore } from './claims.js';
import { baseNameOf, childText, joinPath, parseRemoteLocation, RemoteError, type RemoteLocation } from './location.js';
import type { OpenStore } from './stores/open-store.js';
import type { StagedFile } from './stage-inputs.js';

type StoreLocation = Exclude<RemoteLocation, { kind: 'http' }>;

interface OrderLike {
  file?: string;
  status: string;
}

/** Statuses that leave a sheet where it is (see import/archive.ts for a local inbox's same rule). */
const TO_FIX = ['invalid', 'rejected'];
const TO_RETRY = ['failed', 'in_progress_elsewhere'];

export interface FileVerdict {
  /** Why the sheet stays in the inbox, or null when every order in it is done with. */
  kept: string | null;
  /** How its claim ends: retry while some order may still go through on a later run. */
  claim: ClaimEnd;
}

/** What became of a sheet, from its orders' statuses and whether it could be read (pure). */
export function judgeFile(statuses: readonly string[], inputError: string | undefined): FileVerdict {
  const count = (set: readonly string[]) => statuses.filter((s) => set.includes(s)).length;
  const reasons: string[] = [];
  if (inputError !== undefined) reasons.push(`it could not be read (${inputError}); upload a corrected version`);
  if (count(TO_FIX) > 0) reasons.push(`${count(TO_FIX)} order(s) need fixing (invalid, or rejected by the API): upload a corrected version and it is processed again`);
  if (count(TO_RETRY) > 0) reasons.push(`${count(TO_RETRY)} order(s) did not go through: the next run tries the sheet again`);
  return { kept: reasons.length === 0 ? null : reasons.join('; '), claim: count(TO_RETRY) > 0 ? 'retry' : 'done' };
}

function listOutput(report: JsonReport): string[] {
  return report.output === null ? [] : Array.isArray(report.output) ? [...report.output] : [report.output];
}

export interface FinishDeps {
  openStore: OpenStore;
  claims?: ClaimStore;
  /** A remote --archive, or undefined. */
  archive?: string;
  /** Where the result of an https:// sheet goes when there is no --out: the current folder. */
  fallbackFolder: string;
}

/** Puts results and archives, settles claims and renames what the report names. Failures become output errors (exit 2). */
export async function finishStaged(staged: readonly StagedFile[], report: JsonReport, deps: FinishDeps): Promise<void> {
  const names = new Map<string, string>();
  const errors: JsonOutputError[] = [];
  const outputs = listOutput(report);
  const orders = Array.isArray(report.orders) ? (report.orders as OrderLike[]) : [];
  const archive = deps.archive ? (parseRemoteLocation(deps.archive) as StoreLocation) : undefined;
  const isOnlyInput = report.input.length === 1;
  const verdictOf = (file: string) => {
    const statuses = orders.filter((o) => o.file === file || (o.file === undefined && isOnlyInput)).map((o) => o.status);
    return judgeFile(statuses, report.input.find((i) => i.file === file)?.error?.message);
  };
  const resultOf = (file: string) => outputs.find((o) => dirname(o) === dirname(file) && o !== file);
  // Local sheets are this function's only with a remote archive (a local one was done by the command).
  const localInputs = archive ? report.input.map((i) => i.file).filter((f) => !staged.some((s) => s.localFile === f)) : [];
  for (const file of [...staged.map((s) => s.localFile), ...localInputs]) {
    const item = staged.find((s) => s.localFile === file);
    const verdict = verdictOf(file);
    const result = resultOf(file);
    const shownSheet = item?.location ?? file;
    try {
      if (archive && verdict.kept === null && report.input.some((i) => i.file === file)) {
        const moved = await archiveFile(archive, item, file, result, deps);
        (report.archived ??= []).push({ file: shownSheet, sheet: moved.sheet, ...(moved.result ? { result: moved.result } : {}) });
        if (result && moved.result) names.set(result, moved.result);
      } else if (item && result) {
        const target = await putResultBeside(item, result, deps);
        names.set(result, target);
        if (archive && verdict.kept !== null) (report.kept ??= []).push({ file: item.location, result: target, reason: verdict.kept });
      }
      const archived = report.archived?.find((a) => a.file === file);
      if (item?.store && item.remotePath && archived && !archive) await item.store.remove(item.remotePath);
      if (item?.isClaimed) await deps.claims?.finish(item.location, item.version, verdict.claim, verdict.kept ?? 'done');
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      errors.push({ file: shownSheet, path: result ?? file, code: null, message: error.message });
      if (item?.isClaimed) await deps.claims?.finish(item.location, item.version, 'retry', error.message);
    }
    if (item) names.set(file, item.location);
  }
  renameInReport(report, names);
  if (errors.length > 0) report.outputErrors = [...(report.outputErrors ?? []), ...errors];
  for (const item of staged) rmSync(dirname(item.localFile), { recursive: true, force: true });
}

async function archiveFile(archive: StoreLocation, item: StagedFile | undefined, file: string, result: string | undefined, deps: FinishDeps): Promise<{ sheet: string; result?: string }> {
  const store = await deps.openStore(archive);
  const folder = archive.kind === 'sftp' ? archive.path : archive.key;
  const target = (name: string) => joinPath(folder, name);
  const resultTarget = result ? target(basename(result)) : undefined;
  if (result && resultTarget) await store.upload(result, resultTarget);
  const sheetName = item ? baseNameOf(item.remotePath ?? item.location) : basename(file);
  const sheetStore = item?.store;
  if (item && sheetStore === store && item.remotePath) await store.move(item.remotePath, target(sheetName));
  else {
    await store.upload(file, target(sheetName));
    if (item?.store && item.remotePath) await item.store.remove(item.remotePath);
    if (!item) rmSync(file, { force: true });
  }
  if (!item && result) rmSync(result, { force: true });
  return { sheet: childText(archive, sheetName), ...(resultTarget && result ? { result: childText(archive, basename(result)) } : {}) };
}

async function putResultBeside(item: StagedFile, result: string, deps: FinishDeps): Promise<string> {
  if (!item.store || !item.remotePath) {
    // An https:// sheet has no folder to write to: its result comes here, as a download would.
    const target = join(deps.fallbackFolder, basename(result));
    renameSync(result, target);
    return target;
  }
  const slash = item.remotePath.lastIndexOf('/');
  const path = `${slash < 0 ? '' : item.remotePath.slice(0, slash + 1)}${basename(result)}`;
  await item.store.upload(result, path);
  return item.location.slice(0, item.location.length - baseNameOf(item.location).length) + basename(result);
}

/** The report names remote files by their locations (never the work folder's copies). */
export function renameInReport(report: JsonReport, names: ReadonlyMap<string, string>): void {
  const rename = (path: string) => names.get(path) ?? path;
  for (const input of report.input) {
    if (input.error) for (const [from, to] of names) input.error.message = input.error.message.replaceAll(from, to);
    input.file = rename(input.file);
  }
  if (Array.isArray(report.orders)) for (const order of report.orders as OrderLike[]) if (order.file !== undefined) order.file = rename(order.file);
  if (report.output !== null) report.output = Array.isArray(report.output) ? report.output.map(rename) : rename(report.output);
  for (const a of report.archived ?? []) a.file = rename(a.file);
  for (const k of report.kept ?? []) {
    k.file = rename(k.file);
    k.result = rename(k.result);
  }
  for (const e of report.outputErrors ?? []) e.file = rename(e.file);
  const withConfirmations = report as { confirmations?: string | string[]; confirmationFiles?: { path: string }[] };
  if (typeof withConfirmations.confirmations === 'string') withConfirmations.confirmations = rename(withConfirmations.confirmations);
  for (const file of withConfirmations.confirmationFiles ?? []) file.path = rename(file.path);
}

/** Every file a local folder holds (a result written for a remote --out), with its size, for the upload. */
export function filesIn(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).map((n) => join(folder, n)).filter((p) => statSync(p).isFile() && !p.endsWith('.part'));
}
