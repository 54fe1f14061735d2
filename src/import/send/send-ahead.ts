/**
 * The ledger's side of sending, kept just ahead of the POSTs (PRODUCT.md section 5: every order is
 * recorded before it is sent). Each order's fingerprint (the JSON text the POST sends and the
 * ledger records, and its hash) is made a few per turn of the event loop; the ledger decides the
 * orders' fates in chunks, one commit each, in the turn after the answers being handled. Done when
 * an answer arrives, either would hold up every answer queued behind it.
 */
import { fingerprintPayload, type IntentResult, type LedgerRun, type OrderIntent, type PayloadFingerprint } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import type { SubmissionJob } from './types.js';

/**
 * Intents are recorded, and first sends marked 'sending', this many orders ahead of the POSTs: one
 * commit per chunk instead of one per order. A run killed mid-chunk leaves the chunk's unsent
 * orders 'sending'; the next run looks each up with a GET (404) before sending it, so the price of
 * a kill is a few GETs, never a second POST.
 */
export const PREPARE_CHUNK = 64;
/** Fingerprints are made up to this many orders past the ledger's chunks, FINGERPRINT_STEP per turn. */
const FINGERPRINT_AHEAD = 256;
const FINGERPRINT_STEP = 4;

export interface SendAhead {
  /** The ledger's decision for job `index`, taken with its chunk (at once if the chunk is not in yet). */
  decisionFor(index: number): Promise<IntentResult>;
  /** True the first time for an order prepareSends marked 'sending': its first POST needs no mark of its own. */
  takeMark(index: number): boolean;
  /** The intent as the ledger records it, with its fingerprint. */
  intentOf(index: number): OrderIntent;
  /** The JSON text the ledger records for the order: what its POST sends. */
  jsonOf(index: number): string;
  /** The order is settled: its fingerprint is let go of (a large run must not hold every order's text). */
  settle(index: number): void;
  /** Stops the work queued ahead; returns the ids marked 'sending' that were never POSTed (for releaseUnsent). */
  finish(): Promise<string[]>;
}

export function createSendAhead(
  jobs: readonly SubmissionJob[],
  options: { run: LedgerRun; logger: Logger; isStopped: () => boolean },
): SendAhead {
  const { run, logger, isStopped } = options;
  const decisions: IntentResult[] = new Array<IntentResult>(jobs.length);
  /** Marked 'sending' by prepareSends and not yet POSTed. */
  const marked: boolean[] = new Array<boolean>(jobs.length).fill(false);
  const fingerprints: (PayloadFingerprint | undefined)[] = new Array<PayloadFingerprint | undefined>(jobs.length);
  let prepared = 0;
  /** The chunk being recorded: one at a time, in order. */
  let preparing: Promise<void> | undefined;
  let fingerprinted = 0;
  let prepareStep: NodeJS.Immediate | undefined;
  let fingerprintStep: NodeJS.Immediate | undefined;

  const fingerprintFor = (index: number): PayloadFingerprint => (fingerprints[index] ??= fingerprintPayload(jobs[index]!.payload));
  const intentOf = (index: number): OrderIntent => {
    const job = jobs[index]!;
    return { payload: job.payload, sourceFile: job.file, sourceSha256: job.sha256, sourceRows: job.order.rows, fingerprint: fingerprintFor(index) };
  };
  const describe = (err: unknown) => ({ err: err instanceof Error ? err.message : String(err) });

  function fingerprintAhead(): void {
    if (fingerprintStep !== undefined) return;
    const step = (): void => {
      fingerprintStep = undefined;
      try {
        // Orders the ledger has taken were fingerprinted then (and are let go of once settled).
        fingerprinted = Math.max(fingerprinted, prepared);
        const end = Math.min(jobs.length, fingerprinted + FINGERPRINT_STEP);
        for (; fingerprinted < end; fingerprinted++) fingerprintFor(fingerprinted);
      } catch (err) {
        // Never thrown out of an immediate: the job that needs it makes it again, and fails where it counts.
        logger.debug(describe(err), 'fingerprinting the next orders ahead failed');
        return;
      }
      if (!isStopped() && fingerprinted < Math.min(jobs.length, prepared + FINGERPRINT_AHEAD)) fingerprintStep = setImmediate(step);
    };
    fingerprintStep = setImmediate(step);
  }

  async function prepareChunk(index: number): Promise<void> {
    const from = prepared;
    const to = Math.min(jobs.length, Math.max(index + 1, from + PREPARE_CHUNK));
    const intents = jobs.slice(from, to).map((_job, k) => intentOf(from + k));
    (await run.prepareSends(intents)).forEach((result, k) => {
      decisions[from + k] = result;
      marked[from + k] = result.action === 'send';
    });
    prepared = to;
    fingerprintAhead();
  }

  /** Records chunks until job `index` has its decision; a failed chunk is tried again by whoever needs it next. */
  async function prepareUpTo(index: number): Promise<void> {
    while (index >= prepared) {
      preparing ??= prepareChunk(index).finally(() => {
        preparing = undefined;
      });
      await preparing;
    }
  }

  return {
    async decisionFor(index) {
      if (index >= prepared) await prepareUpTo(index);
      // The next chunk's commit runs after the answers now being handled, in the idle time before the
      // next ones: taken when a job needs it, it would hold up every answer queued behind that job.
      if (prepared - index <= PREPARE_CHUNK / 2 && prepared < jobs.length && prepareStep === undefined && preparing === undefined) {
        prepareStep = setImmediate(() => {
          prepareStep = undefined;
          if (isStopped() || prepared >= jobs.length) return;
          prepareUpTo(prepared).catch((err: unknown) => {
            // Taken again, and thrown where it counts, by the job that needs the chunk.
            logger.debug(describe(err), 'preparing the next orders ahead failed');
          });
        });
      }
      return decisions[index]!;
    },
    takeMark(index) {
      if (!marked[index]) return false;
      marked[index] = false;
      return true;
    },
    intentOf,
    jsonOf: (index) => fingerprintFor(index).json,
    settle(index) {
      fingerprints[index] = undefined;
    },
    async finish() {
      clearImmediate(prepareStep);
      clearImmediate(fingerprintStep);
      prepareStep = fingerprintStep = undefined;
      // A chunk already on its way to the ledger marks its orders too: wait for it, to release them.
      await preparing?.catch(() => undefined);
      return jobs.flatMap((job, index) => (marked[index] ? [job.payload.orderDetails.customerOrderId] : []));
    },
  };
}
