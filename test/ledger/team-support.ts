/** One ledger per test on each backend, opened as often as a test needs (each open: another instance). */
import { afterEach, beforeEach } from 'vitest';
import type { Ledger, LedgerOptions } from '../../src/ledger/types.js';
import type { BackendUnderTest, LedgerUnderTest } from './backends.js';
import { buildClock } from './builders.js';

export function useLedgers(backend: BackendUnderTest) {
  const state = { store: undefined as LedgerUnderTest | undefined, clock: buildClock(), opened: [] as Ledger[] };
  beforeEach(async () => {
    state.clock = buildClock();
    state.opened = [];
    state.store = await backend.create();
  });
  afterEach(async () => {
    for (const ledger of state.opened) await ledger.close();
    await state.store?.drop();
  });
  return {
    get store(): LedgerUnderTest {
      return state.store!;
    },
    get clock() {
      return state.clock;
    },
    /** Another connection to the test's ledger, as another instance would open it, on the test's clock. */
    async open(options: LedgerOptions = {}): Promise<Ledger> {
      const ledger = await state.store!.open({ now: state.clock.now, ...options });
      state.opened.push(ledger);
      return ledger;
    },
  };
}
