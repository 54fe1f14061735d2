/** What an import is given (ImportOptions, from the CLI, the web app or the scheduler) and what it returns. */
import type { Connection } from '../connection/connect.js';
import { type Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { ConnectionSettings } from '../options.js';
import type { CheckContext } from '../orders/types.js';
import type { OrderProgress, Progress } from '../progress.js';
import type { JsonReport } from '../run-report/json.js';
import type { ReadSettings } from '../validate/check-file.js';
import type { StopReason } from './send/submit.js';

export interface ImportOptions {
  files: readonly string[];
  out?: string;
  sheet?: string;
  context: CheckContext;
  connection: ConnectionSettings;
  useSandbox: boolean;
  concurrency: number;
  maxAttempts: number;
  dryRun: boolean;
  /** Where the ledger is: the embedded sandbox keeps its world beside it. */
  ledgerPath: string;
  /**
   * The ledger the entry point opened (the CLI command, the web app, the scheduler): used, and left open.
   * The run holds its run lock from start to end only, so what follows the run writes through the same object.
   */
  ledger: Ledger;
  archiveDir?: string;
  logger: Logger;
  progress?: Progress;
  orderProgress?: OrderProgress;
  /** How columns, dates and numbers are read (--mapping, --date-order, --decimal-comma). */
  readSettings?: ReadSettings;
  /** For tests and the web app: an existing connection instead of building one. */
  connectionOverride?: Connection;
  /** Backoff for retries; default 0.5 s doubling to 30 s. Tests shorten it. */
  backoff?: { baseMs: number; maxMs: number };
  /** Called for each order as it is done (the web app shows live progress). */
  onOrderDone?: (done: number, total: number, status: string) => void;
  /** Called once the run is registered in the ledger (the web app's job notes which run it is). */
  onRunStarted?: (runId: string) => void;
  /** Aborted (Ctrl-C, SIGTERM): send nothing more, finish the orders in flight, write the results. */
  signal?: AbortSignal;
  /** This run's share of the team's POSTs in flight (--team-concurrency): it can lower the run's share of the ledger's team cap, never raise the cap. */
  teamConcurrency?: number;
}

export interface ImportResult {
  report: JsonReport<unknown[]>;
  hasUnusableInput: boolean;
  /** Some order is invalid, rejected or failed. */
  hasProblems: boolean;
  /** The API could not be used at all (auth refused, 403, unreachable). */
  apiUnusable?: StopReason;
  /** The ledger failed once open (a full disk, a damaged file): the run stopped sending, the results say what was settled (exit 3). */
  ledgerFailure?: { ledger: string; message: string };
  /** The run was interrupted before every order was sent; those not sent are 'failed' and go out on the next run. */
  interrupted?: boolean;
  runId?: string;
}

