/**
 * Who holds an order another run is sending (a shared ledger), in words for its result row: the
 * run's command, process, host and start, read once per run.
 */
import { type Ledger } from '../../ledger/index.js';

export interface HolderNames {
  /** "import, process 4321 on cron-2, started at 2031-05-06T07:08:09.000Z"; "another run" when it is not known. */
  describe(runId: string | null): Promise<string>;
}

export function createHolderNames(ledger: Pick<Ledger, 'getRun'>): HolderNames {
  const known = new Map<string, Promise<string>>();
  const read = async (runId: string): Promise<string> => {
    const run = await ledger.getRun(runId);
    return run ? `${run.command}, process ${run.pid} on ${run.host}, started at ${run.startedAt}` : 'another run';
  };
  return {
    describe(runId) {
      if (runId === null) return Promise.resolve('another run');
      let name = known.get(runId);
      if (!name) known.set(runId, (name = read(runId).catch(() => 'another run')));
      return name;
    },
  };
}
