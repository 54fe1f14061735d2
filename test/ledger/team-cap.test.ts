/**
 * The team's concurrency cap kept in the ledger (src/ledger/team-cap.ts): every run's send gate obeys
 * the cap the ledger stores, whatever the run's own share, and reads it again as the run goes. The
 * gates are each opened on a ledger of their own, as separate processes would.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAP_REREAD_MS, decideChangeNotes, decideStartNotes, parseTeamCap, parseTeamCapChange, TEAM_CAP_SETTING } from '../../src/ledger/team-cap.js';
import type { Ledger, LedgerOptions, SendGate } from '../../src/ledger/types.js';
import { BACKENDS, type LedgerUnderTest } from './backends.js';

/** Whether `entering` is still waiting after its gate has had every chance to let it in (several polls). */
async function isStillWaiting(entering: Promise<unknown>): Promise<boolean> {
  const waited = Symbol('waiting');
  return (await Promise.race([entering, new Promise((resolve) => setTimeout(() => resolve(waited), 200))])) === waited;
}

describe('the team cap in words and numbers', () => {
  it('reads a stored cap, and caps nothing with a value it cannot read', () => {
    expect(parseTeamCap('16')).toBe(16);
    expect([parseTeamCap(null), parseTeamCap('0'), parseTeamCap('1001'), parseTeamCap('lots'), parseTeamCap('-3')]).toEqual([null, null, null, null, null]);
  });

  it('takes a number from 1 to 1000 or off for ledger set', () => {
    expect(parseTeamCapChange(' 8 ')).toEqual({ ok: true, cap: 8 });
    expect(parseTeamCapChange('OFF')).toEqual({ ok: true, cap: null });
    for (const bad of ['0', '1001', '2.5', 'eight', '']) expect(parseTeamCapChange(bad)).toMatchObject({ ok: false, message: expect.stringContaining('1 to 1000') });
  });

  it("says what bounds a run: the team's cap, its own lower share, or that its higher one does not count", () => {
    expect(decideStartNotes(null, undefined, true)).toEqual([]);
    expect(decideStartNotes(null, 4, true)).toEqual([{ kind: 'run_only', share: 4 }]);
    // A file ledger has no team: its share is simply the run's bound.
    expect(decideStartNotes(null, 4, false)).toEqual([]);
    expect(decideStartNotes(6, undefined, true)).toEqual([{ kind: 'team_cap', cap: 6 }]);
    expect(decideStartNotes(6, 4, true)).toEqual([{ kind: 'own_share', share: 4, cap: 6 }]);
    expect(decideStartNotes(6, 9, true)).toEqual([{ kind: 'share_above_cap', share: 9, cap: 6 }]);
  });

  it('says once that the ledger cap applies when a change mid-run puts it below the run\'s share', () => {
    expect(decideChangeNotes(2, 6, 4, false)).toEqual([{ kind: 'cap_changed', cap: 2, previous: 6 }, { kind: 'share_above_cap', share: 4, cap: 2 }]);
    expect(decideChangeNotes(1, 2, 4, true)).toEqual([{ kind: 'cap_changed', cap: 1, previous: 2 }]);
    expect(decideChangeNotes(null, 2, 4, true)).toEqual([{ kind: 'cap_changed', cap: null, previous: 2 }]);
  });
});

describe.each(BACKENDS)('the team cap on the $name ledger', (backend) => {
  let store: LedgerUnderTest;
  let opened: Ledger[];
  let gates: SendGate[];
  const open = async (options: LedgerOptions = {}): Promise<Ledger> => {
    const ledger = await store.open(options);
    opened.push(ledger);
    return ledger;
  };
  /** A gate on a ledger of its own; `caps` collects what it is told of the team's cap. */
  const openGate = async (share?: number, options: LedgerOptions = {}) => {
    const caps: (number | null)[] = [];
    const gate = await (await open(options)).openSendGate({ ...(share === undefined ? {} : { share }), onCap: (cap) => caps.push(cap) });
    gates.push(gate);
    return { gate, caps };
  };

  beforeEach(async () => {
    opened = [];
    gates = [];
    store = await backend.create();
  });
  afterEach(async () => {
    for (const gate of gates) await gate.close();
    for (const ledger of opened) await ledger.close();
    await store.drop();
  });

  describe.runIf(backend.hasConcurrentRuns)('a team on one ledger', () => {
    it('holds every run to the cap stored in the ledger: one without a share of its own, one whose share is higher', async () => {
      await (await open()).setSetting(TEAM_CAP_SETTING, '2');
      const higher = await openGate(5);
      const unbounded = await openGate();
      expect([higher.caps, unbounded.caps]).toEqual([[2], [2]]);
      const leave = [await higher.gate.enter(), await unbounded.gate.enter()];
      const third = unbounded.gate.enter();
      const fourth = higher.gate.enter();
      expect(await isStillWaiting(third)).toBe(true);
      expect(await isStillWaiting(fourth)).toBe(true);
      await leave[0]!();
      const next = await Promise.race([third, fourth]);
      await next();
      await leave[1]!();
      await (await third)();
      await (await fourth)();
    });

    it('with no cap stored, keeps the runs that give a value of their own within it together, and holds none that gives none', async () => {
      const first = await openGate(2);
      const second = await openGate(2);
      const unbounded = await openGate();
      expect([first.caps, second.caps, unbounded.caps]).toEqual([[null], [null], [null]]);
      const leave = [await first.gate.enter(), await second.gate.enter()];
      // Two runs at --team-concurrency 2 share two places, not two each.
      const third = first.gate.enter();
      const fourth = second.gate.enter();
      expect(await isStillWaiting(third)).toBe(true);
      expect(await isStillWaiting(fourth)).toBe(true);
      const free = await Promise.all([1, 2, 3].map(() => unbounded.gate.enter()));
      for (const l of free) await l();
      await leave[0]!();
      await (await Promise.race([third, fourth]))();
      await leave[1]!();
      await (await third)();
      await (await fourth)();
    });

    it("lowers no one's cap with a run's own share: that share bounds only its own run", async () => {
      await (await open()).setSetting(TEAM_CAP_SETTING, '3');
      const small = await openGate(1);
      const other = await openGate();
      const mine = await small.gate.enter();
      const second = small.gate.enter();
      expect(await isStillWaiting(second)).toBe(true);
      // The team still has room for two more, and the other run takes them.
      const theirs = [await other.gate.enter(), await other.gate.enter()];
      await mine();
      await (await second)();
      for (const leave of theirs) await leave();
    });

    it('applies a cap lowered while runs go to the next place taken, and a raised one to those waiting', async () => {
      const ledger = await open();
      await ledger.setSetting(TEAM_CAP_SETTING, '4');
      const first = await openGate();
      const second = await openGate();
      const held = [await first.gate.enter(), await first.gate.enter(), await first.gate.enter(), await first.gate.enter()];
      const waiting = second.gate.enter();
      expect(await isStillWaiting(waiting)).toBe(true);
      await ledger.setSetting(TEAM_CAP_SETTING, '1');
      // Four in flight, above the new cap of one: they finish, and no one goes out until all have,
      // whichever places the one left holds.
      for (const leave of held.slice(0, 3)) await leave();
      expect(await isStillWaiting(waiting)).toBe(true);
      await held[3]!();
      const leaveSecond = await waiting;
      expect(second.caps).toEqual([4, 1]);
      const again = first.gate.enter();
      expect(await isStillWaiting(again)).toBe(true);
      await ledger.setSetting(TEAM_CAP_SETTING, '2');
      const leaveFirst = await again;
      expect(first.caps).toEqual([4, 1, 2]);
      await leaveFirst();
      await leaveSecond();
    });

    it('looks again for a cap every little while when none is stored, and lets everything through once it is removed', async () => {
      let clock = 0;
      const ledger = await open();
      const { gate, caps } = await openGate(undefined, { leaseClock: () => clock });
      const before = [await gate.enter(), await gate.enter()];
      await ledger.setSetting(TEAM_CAP_SETTING, '1');
      clock += CAP_REREAD_MS;
      for (const leave of before) await leave();
      const leave = await gate.enter();
      const waiting = gate.enter();
      expect(await isStillWaiting(waiting)).toBe(true);
      expect(caps).toEqual([null, 1]);
      expect(await ledger.removeSetting(TEAM_CAP_SETTING)).toBe(true);
      await (await waiting)();
      await leave();
      expect(caps).toEqual([null, 1, null]);
      // Without a cap, as many as the run asks for go at once.
      const many = await Promise.all([1, 2, 3, 4].map(() => gate.enter()));
      for (const l of many) await l();
    });
  });

  describe.runIf(!backend.hasConcurrentRuns)('a file ledger, one run at a time', () => {
    it("bounds a run by its own share only: a cap copied from a PostgreSQL ledger is kept, not applied", async () => {
      await (await open()).setSetting(TEAM_CAP_SETTING, '1');
      const unbounded = await openGate();
      const many = await Promise.all([1, 2, 3].map(() => unbounded.gate.enter()));
      for (const leave of many) await leave();
      expect(unbounded.caps).toEqual([null]);
      await unbounded.gate.close();
      await expect(unbounded.gate.enter()).rejects.toThrow(/closed/);
    });
  });

  it('describes itself: its schema version and how many runs it holds', async () => {
    const ledger = await open();
    await (await ledger.startRun({ command: 'import', files: [] })).finish({ summary: {} });
    await ledger.startRun({ command: 'import', files: [] });
    const described = await ledger.describe();
    expect(described.schemaVersion).toMatch(/^\d+/);
    expect(described.runs).toBe(2);
    expect(described.liveRuns).toBe(backend.hasConcurrentRuns ? 1 : null);
  });
});
