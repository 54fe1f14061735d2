/**
 * guardLedger: every call on a ledger, and on what it hands out (a run, a lock, the pages of a
 * generator), turns a storage failure the classifier recognises into the classifier's error; a bug
 * goes on as it is, and the ledger's data (records, maps of them) comes back untouched.
 */
import { describe, expect, it } from 'vitest';
import { guardLedger } from '../../src/ledger/guard.js';

class StorageFull extends Error {
  readonly code = 'FULL';
}
class Classified extends Error {}
const classify = (error: unknown): Error | null => (error instanceof StorageFull ? new Classified(`classified: ${error.message}`, { cause: error }) : null);

class FakeRun {
  readonly runId = 'run-1';
  marked: string[] = [];
  markSending = async (id: string): Promise<void> => {
    if (id === 'full') throw new StorageFull('no room for ' + id);
    this.marked.push(id);
  };
  async finish(): Promise<void> {
    throw new StorageFull('no room to finish');
  }
}

class FakeLedger {
  readonly location = '/x/ledger.db';
  readonly records = new Map([['O-1', { customerOrderId: 'O-1', state: 'accepted' }]]);
  async getMany(): Promise<Map<string, { customerOrderId: string; state: string }>> {
    return this.records;
  }
  async startRun(): Promise<FakeRun> {
    return new FakeRun();
  }
  async acquireRunLock() {
    return { holder: { pid: 1 }, release: async () => Promise.reject(new StorageFull('no room to release')) };
  }
  countSync(): number {
    throw new StorageFull('no room to count');
  }
  async *pages(failAt: number) {
    for (let page = 0; ; page++) {
      if (page === failAt) throw new StorageFull(`page ${page} unreadable`);
      yield [page];
    }
  }
  async buggy(): Promise<void> {
    throw new TypeError('a bug');
  }
}

describe('guardLedger', () => {
  const ledger = guardLedger(new FakeLedger(), classify);

  it('classifies a failure thrown at once or through a promise, and leaves a bug as it is', async () => {
    expect(() => ledger.countSync()).toThrow(Classified);
    await expect(ledger.buggy()).rejects.toThrow(TypeError);
  });

  it('guards the run it hands out, both its arrow fields and its methods, and the run still works', async () => {
    const run = await ledger.startRun();
    await run.markSending('O-1');
    expect(run.marked).toEqual(['O-1']);
    expect(run.runId).toBe('run-1');
    await expect(run.markSending('full')).rejects.toThrow('classified: no room for full');
    await expect(run.finish()).rejects.toThrow(Classified);
  });

  it("guards a lock's release", async () => {
    const lock = await ledger.acquireRunLock();
    expect(lock.holder).toEqual({ pid: 1 });
    await expect(lock.release()).rejects.toThrow(Classified);
  });

  it('guards the steps of an async generator, which stays iterable with for await', async () => {
    const seen: number[][] = [];
    await expect(
      (async () => {
        for await (const page of ledger.pages(2)) seen.push(page);
      })(),
    ).rejects.toThrow('classified: page 2 unreadable');
    expect(seen).toEqual([[0], [1]]);
  });

  it('hands the data back as it is: the same Map, not a stand-in', async () => {
    const records = await ledger.getMany();
    expect(records).toBeInstanceOf(Map);
    expect(records.get('O-1')).toEqual({ customerOrderId: 'O-1', state: 'accepted' });
    expect(Map.prototype.get.call(records, 'O-1')).toBeDefined();
  });
});
