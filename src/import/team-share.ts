/**
 * What an import run says about its share of the team's POSTs in flight: the ledger's team cap (read
 * when the run starts and again as it goes) and the run's own `--team-concurrency`, which can only
 * lower its share. The decisions are team-cap.ts's; the words are here.
 */
import { decideChangeNotes, decideStartNotes, type ShareNote } from '../ledger/index.js';
import type { Logger } from '../log.js';

function describeNote(note: ShareNote, ledger: string): { level: 'info' | 'warn'; message: string } {
  switch (note.kind) {
    case 'team_cap':
      return { level: 'info', message: `the team's cap stored in the ledger applies: at most ${note.cap} orders in flight across every run on it` };
    case 'own_share':
      return { level: 'info', message: `this run sends at most ${note.share} orders at once (its --team-concurrency), within the team's cap of ${note.cap} stored in the ledger` };
    case 'share_above_cap':
      return {
        level: 'warn',
        message: `--team-concurrency ${note.share} is above the team's cap of ${note.cap} stored in the ledger: the ledger's cap applies (a run's own value can only lower its share)`,
      };
    case 'run_only':
      return {
        level: 'warn',
        message: `--team-concurrency ${note.share} is shared only by the runs that give a value: the ledger ${ledger} holds no team cap, so runs without one are not held back. To cap every run on it: order-batch ledger set team-concurrency ${note.share}`,
      };
    case 'cap_changed':
      return {
        level: 'info',
        message:
          note.cap === null
            ? `the team's cap was removed from the ledger (it was ${note.previous}): only each run's own bounds apply now`
            : `the team's cap was changed in the ledger: at most ${note.cap} orders in flight across every run now${note.previous === null ? '' : ` (it was ${note.previous})`}`,
      };
  }
}

/** The gate's onCap for one run: the start notes at the first cap read, a change note at each later one. */
export function createShareNotes(options: { share: number | undefined; isShared: boolean; ledger: string; logger: Logger }): (cap: number | null) => void {
  const { share, logger } = options;
  let known: { cap: number | null } | undefined;
  let hasSaidAbove = false;
  return (cap) => {
    const notes = known === undefined ? decideStartNotes(cap, share, options.isShared) : decideChangeNotes(cap, known.cap, share, hasSaidAbove);
    known = { cap };
    for (const note of notes) {
      if (note.kind === 'share_above_cap') hasSaidAbove = true;
      const { level, message } = describeNote(note, options.ledger);
      logger[level]({ teamCap: cap, ...(share === undefined ? {} : { share }) }, message);
    }
  };
}
