/**
 * The outcomes of a run's jobs as they settle, for the copies of an order that wait for the first
 * copy's fate (another file or sheet of the same run holding the same customerOrderId).
 */
import type { SubmissionJob, SubmitOutcome } from './types.js';

export interface JobOutcomes {
  /** Job `index` is settled (null: it threw); whoever waits for it is told. */
  settle(index: number, outcome: SubmitOutcome | null): void;
  /** Job `index`'s outcome, once it is known. */
  outcomeOf(index: number): Promise<SubmitOutcome | null>;
  /** The index of the first job with this customerOrderId. */
  firstIndexOf(customerOrderId: string): number | undefined;
}

export function createJobOutcomes(jobs: readonly SubmissionJob[]): JobOutcomes {
  const known: (SubmitOutcome | null | undefined)[] = new Array<SubmitOutcome | null | undefined>(jobs.length);
  const waiting = new Map<number, ((outcome: SubmitOutcome | null) => void)[]>();
  /** Indexed only once the run meets a duplicate (most runs have none). */
  let firstJobOf: Map<string, number> | undefined;
  return {
    settle(index, outcome) {
      known[index] = outcome;
      for (const wake of waiting.get(index) ?? []) wake(outcome);
      waiting.delete(index);
    },
    outcomeOf(index) {
      const outcome = known[index];
      if (outcome !== undefined) return Promise.resolve(outcome);
      return new Promise((resolve) => {
        const list = waiting.get(index);
        if (list) list.push(resolve);
        else waiting.set(index, [resolve]);
      });
    },
    firstIndexOf(customerOrderId) {
      if (!firstJobOf) {
        firstJobOf = new Map();
        jobs.forEach((job, i) => {
          const key = job.payload.orderDetails.customerOrderId;
          if (!firstJobOf!.has(key)) firstJobOf!.set(key, i);
        });
      }
      return firstJobOf.get(customerOrderId);
    },
  };
}
