/**
 * The one interface the CLI uses: remote inputs read into the work folder before a command runs,
 * remote outputs written locally then put in place after it, claims held meanwhile. When nothing
 * named is remote, it is a pass-through that opens nothing.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { localFolderOf, type Ledger } from '../ledger/index.js';
import type { JsonReport } from '../run-report/json.js';
import { claimsIn, type ClaimStore } from './claims.js';
import { OutputError } from '../errors.js';
import { childText, isRemote, parseRemoteLocation, requireWritable, RemoteError, type RemoteLocation } from './location.js';
import { isConfirmationsFolder } from '../output-files/output-path.js';
import { createStorePool } from './stores/open-store.js';
import { filesIn, finishStaged, renameInReport } from './publish.js';
import { newStagingFolder, stageInputs, type StagedInputs, type WaitingFile } from './stage-inputs.js';
import type { RemoteSettings } from './stores/store.js';

export interface RemoteRunRequest {
  command: 'import' | 'validate' | 'reconcile';
  files?: readonly string[];
  out?: string;
  archive?: string;
  confirmations?: string;
}

export interface RemoteRunContext {
  settings: RemoteSettings;
  /** Where the work folder is kept: beside the ledger. */
  ledgerPath: string;
  /** The run's ledger, which an import's remote sheets are claimed in (validate and reconcile claim nothing). */
  ledger?: Pick<Ledger, 'remoteFiles'>;
  claimLeaseMs: number;
  /** The folder results are moved to when an https:// sheet has no --out. */
  currentFolder: string;
}

export interface RemoteRun {
  files: string[];
  out?: string;
  /** --archive when it is local (a remote one is done in finish). */
  archive?: string;
  confirmations?: string;
  /**
   * With a remote --confirmations: uploads what the run wrote there now, so that the ledger records the
   * confirmations only once they are in place. Throws an OutputError when the upload fails (the files
   * stay in the work folder, unrecorded: the next run writes them again).
   */
  placeConfirmations?: () => Promise<void>;
  /** One line per remote file that waits for a later run, or could not be read. */
  warnings: string[];
  /** Puts outputs in place, settles claims and renames the report's remote files. */
  finish(report: JsonReport): Promise<void>;
  close(): Promise<void>;
  /** The command threw: connections closed, the error passed on (claims lapse with their lease). */
  abandon(error: unknown): Promise<never>;
}

/** How long a claim's lease is renewed ahead: a third of it, as order claims are. */
const RENEW_FRACTION = 3;

export async function prepareRemoteRun(request: RemoteRunRequest, context: RemoteRunContext): Promise<RemoteRun> {
  const files = [...(request.files ?? [])];
  const isAnyRemote = [...files, request.out, request.archive, request.confirmations].some((t) => t !== undefined && isRemote(t));
  if (!isAnyRemote) {
    return { files, ...pick(request), warnings: [], finish: async () => undefined, close: async () => undefined, abandon: (error) => Promise.reject(error) };
  }
  for (const [flag, text] of [['--out', request.out], ['--archive', request.archive], ['--confirmations', request.confirmations]] as const) {
    if (text !== undefined && isRemote(text)) requireWritable(parseRemoteLocation(text), flag);
  }
  const workDir = join(localFolderOf(context.ledgerPath), 'remote');
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const pool = createStorePool(context.settings);
  let claims: ClaimStore | undefined;
  let renewal: NodeJS.Timeout | undefined;
  // The claims stay in the ledger: their lease lapses unless the run settled them.
  const close = async () => {
    if (renewal) clearInterval(renewal);
    await pool.closeAll();
  };
  try {
    if (request.command === 'import' && files.some(isRemote)) {
      if (!context.ledger) throw new Error('An import of remote sheets claims them in its ledger: hand the run its ledger.');
      claims = claimsIn(context.ledger, context.claimLeaseMs);
      const held = claims;
      renewal = setInterval(() => void held.renew().catch(() => undefined), context.claimLeaseMs / RENEW_FRACTION);
      renewal.unref();
    }
    const staged: StagedInputs = await stageInputs(files, {
      openStore: pool.open,
      ...(claims ? { claims } : {}),
      workDir,
      settleSeconds: context.settings.settleSeconds,
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    const out = request.out !== undefined && isRemote(request.out) ? stageOutput(request.out, workDir) : undefined;
    // A --confirmations not ending in .csv is a folder (one file per marketplace), as it is locally.
    const confirmations =
      request.confirmations !== undefined && isRemote(request.confirmations) ? stageOutput(request.confirmations, workDir, isConfirmationsFolder(request.confirmations)) : undefined;
    // Every remote file waiting or taken: the command reads an empty folder, as a cron run over an empty inbox does.
    const emptyFolder = staged.files.length > 0 ? undefined : newStagingFolder(workDir);
    const runFiles = emptyFolder === undefined ? staged.files : [emptyFolder];
    const archive = request.archive !== undefined && isRemote(request.archive) ? request.archive : undefined;
    return {
      files: runFiles,
      ...(request.out !== undefined ? { out: out?.localPath ?? request.out } : {}),
      ...(request.archive !== undefined && !archive ? { archive: request.archive } : {}),
      ...(request.confirmations !== undefined ? { confirmations: confirmations?.localPath ?? request.confirmations } : {}),
      ...(confirmations ? { placeConfirmations: () => confirmations.upload(pool.open) } : {}),
      warnings: [...staged.notes, ...warningsOf(staged.waiting, staged.failures)],
      async finish(report) {
        Object.assign(report, { remote: { waiting: staged.waiting, failed: staged.failures, alreadyProcessed: staged.taken } });
        await finishStaged(staged.staged, report, {
          openStore: pool.open,
          ...(claims ? { claims } : {}),
          ...(archive ? { archive } : {}),
          fallbackFolder: context.currentFolder,
        });
        for (const output of [out, confirmations]) if (output) await output.publish(report, pool.open);
        if (staged.failures.length > 0) {
          report.outputErrors = [...(report.outputErrors ?? []), ...staged.failures.map((f) => ({ file: f.location, path: f.location, code: null, message: `${f.location}: ${f.reason}.` }))];
        }
      },
      close: async () => {
        if (emptyFolder !== undefined) rmSync(emptyFolder, { recursive: true, force: true });
        await close();
      },
      abandon: async (error) => {
        await close();
        throw error;
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function pick(request: RemoteRunRequest): Pick<RemoteRun, 'out' | 'archive' | 'confirmations'> {
  return {
    ...(request.out !== undefined ? { out: request.out } : {}),
    ...(request.archive !== undefined ? { archive: request.archive } : {}),
    ...(request.confirmations !== undefined ? { confirmations: request.confirmations } : {}),
  };
}

function warningsOf(waiting: readonly WaitingFile[], failures: readonly WaitingFile[]): string[] {
  return [
    ...waiting.map((w) => `${w.location} waits for the next run: ${w.reason}.`),
    ...failures.map((f) => `${f.location}: ${f.reason}.`),
  ];
}

interface StagedOutput {
  localPath: string;
  /** Puts every file of the local folder in place, once; a failure throws an OutputError and is remembered. */
  upload(open: ReturnType<typeof createStorePool>['open']): Promise<void>;
  /** Uploads what was not yet, then names the remote files in the report (or reports the failure once). */
  publish(report: JsonReport, open: ReturnType<typeof createStorePool>['open']): Promise<void>;
}

/** A remote --out or --confirmations: written into a local folder first, then each file put in place whole. */
function stageOutput(text: string, workDir: string, isAlwaysFolder = false): StagedOutput {
  const location = parseRemoteLocation(text) as Exclude<RemoteLocation, { kind: 'http' }>;
  const folder = newStagingFolder(workDir);
  const isFolder = isAlwaysFolder || location.isFolder;
  const remotePath = location.kind === 'sftp' ? location.path : location.key;
  const localPath = isFolder ? `${folder}/` : join(folder, remotePath.slice(remotePath.lastIndexOf('/') + 1));
  const names = new Map<string, string>();
  let done: { failure: OutputError | null } | undefined;
  const upload = async (open: ReturnType<typeof createStorePool>['open']) => {
    if (done) {
      if (done.failure) throw done.failure;
      return;
    }
    try {
      const store = await open(location);
      for (const file of filesIn(folder)) {
        const name = file.slice(folder.length + 1);
        const target = isFolder ? (remotePath === '' || remotePath.endsWith('/') ? `${remotePath}${name}` : `${remotePath}/${name}`) : remotePath;
        await store.upload(file, target);
        names.set(file, isFolder ? childText(location, name) : location.shown);
      }
      done = { failure: null };
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      const failure = new OutputError(location.shown, null, `${error.message} The results are kept in ${folder}.`, { cause: error });
      done = { failure };
      throw failure;
    }
  };
  return {
    localPath,
    upload,
    async publish(report, open) {
      await upload(open).catch((error: unknown) => {
        if (!(error instanceof OutputError)) throw error;
      });
      renameInReport(report, names);
      const failure = done?.failure;
      if (!failure) {
        rmSync(folder, { recursive: true, force: true });
        return;
      }
      // A failure the run already reported (the confirmations' upload, before the ledger was told) is not told twice.
      const isReported = (report.outputErrors ?? []).some((e) => e.message === failure.message);
      if (!isReported) report.outputErrors = [...(report.outputErrors ?? []), { file: location.shown, path: location.shown, code: null, message: failure.message }];
    },
  };
}
