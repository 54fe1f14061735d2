/**
 * Bridges a push parser (papaparse calls us per chunk) to a pull consumer (for await), one
 * promise per batch rather than per row, pausing the producer when the consumer falls behind.
 */
export interface FlowControl {
  pause(): void;
  resume(): void;
}

export class BatchQueue<T> {
  private readonly items: T[] = [];
  private isDone = false;
  private failure: unknown = null;
  private wake: (() => void) | null = null;
  private isPaused = false;

  /** `highWater` queued batches pause the producer; an empty queue resumes it. */
  constructor(private readonly flow: FlowControl, private readonly highWater = 4) {}

  push(item: T): void {
    if (this.isDone) return;
    this.items.push(item);
    if (!this.isPaused && this.items.length >= this.highWater) {
      this.isPaused = true;
      this.flow.pause();
    }
    this.notify();
  }

  end(): void {
    this.isDone = true;
    this.notify();
  }

  /** Batches already queued are still delivered; the error comes after them. */
  fail(error: unknown): void {
    if (this.isDone) return;
    this.failure = error;
    this.isDone = true;
    this.notify();
  }

  get isFinished(): boolean {
    return this.isDone;
  }

  async *drain(): AsyncGenerator<T, void, undefined> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        if (this.isPaused && this.items.length === 0 && !this.isDone) {
          this.isPaused = false;
          this.flow.resume();
        }
        yield item;
        continue;
      }
      if (this.isDone) {
        if (this.failure !== null) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
