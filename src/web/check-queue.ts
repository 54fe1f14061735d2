/**
 * Checks of uploaded sheets, a few at a time (two by default): fifty uploads at once would otherwise be fifty
 * sheets in memory at once. The others wait their turn in upload order, and each knows its place in the line,
 * which the page of a waiting upload shows.
 */
export type CheckState = ({ state: 'waiting'; ahead: number } | { state: 'running' } | { state: 'failed'; message: string }) & { fileName: string };

export const DEFAULT_CHECKS_AT_ONCE = 2;

/** Failed checks remembered for their page, the most recent ones. */
const FAILURES_KEPT = 100;

export class CheckQueue {
  private readonly running = new Map<string, string>();
  private readonly waiting: { id: string; fileName: string; start: () => void }[] = [];
  private readonly failures = new Map<string, { fileName: string; message: string }>();

  constructor(private readonly limit = DEFAULT_CHECKS_AT_ONCE) {}

  /** How many checks wait their turn. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Whether a check handed in now would start at once. */
  get hasRoom(): boolean {
    return this.running.size < this.limit && this.waiting.length === 0;
  }

  /**
   * Runs `check` once fewer than `limit` checks are running and those handed in before it have started.
   * A check that throws is remembered as failed with `describe(error)` for its page, and the error passed on.
   */
  async run<T>(upload: { id: string; fileName: string }, check: () => Promise<T>, describe: (error: unknown) => string): Promise<T> {
    const { id, fileName } = upload;
    if (!this.hasRoom) await new Promise<void>((start) => this.waiting.push({ id, fileName, start }));
    this.running.set(id, fileName);
    try {
      return await check();
    } catch (error) {
      this.failures.set(id, { fileName, message: describe(error) });
      if (this.failures.size > FAILURES_KEPT) this.failures.delete(this.failures.keys().next().value!);
      throw error;
    } finally {
      this.running.delete(id);
      this.waiting.shift()?.start();
    }
  }

  /** Where an upload's check is: waiting (with how many are ahead of it), running, failed, or undefined (done, or unknown). */
  stateOf(id: string): CheckState | undefined {
    const running = this.running.get(id);
    if (running !== undefined) return { state: 'running', fileName: running };
    const ahead = this.waiting.findIndex((w) => w.id === id);
    if (ahead >= 0) return { state: 'waiting', ahead: ahead + this.running.size, fileName: this.waiting[ahead]!.fileName };
    const failure = this.failures.get(id);
    return failure === undefined ? undefined : { state: 'failed', ...failure };
  }
}
