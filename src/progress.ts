/** A progress bar on a terminal for large files; nothing at all otherwise (cron, --json, pipes). */
import cliProgress from 'cli-progress';
import { basename } from 'node:path';
import { escapeControlCharacters } from './terminal-text.js';

export interface Progress {
  start(label: string, total: number): void;
  update(done: number): void;
  stop(): void;
}

/** Below this many bytes a sheet is read in a blink: no bar. */
const MIN_BYTES_FOR_BAR = 2 * 1024 * 1024;

export function createByteProgress(stream: NodeJS.WriteStream): Progress | undefined {
  if (!stream.isTTY) return undefined;
  let bar: cliProgress.SingleBar | null = null;
  return {
    start(label, total) {
      if (total < MIN_BYTES_FOR_BAR) return;
      bar = new cliProgress.SingleBar(
        { stream, format: `${escapeControlCharacters(basename(label))} [{bar}] {percentage}% | ETA {eta}s`, hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0);
    },
    update(done) {
      bar?.update(done);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}

export interface OrderProgress {
  start(total: number): void;
  /** One more order done, with its status. */
  tick(status: string): void;
  stop(): void;
}

/** Orders sent, per status, with orders/s and ETA, on a terminal only. */
export function createOrderProgress(stream: NodeJS.WriteStream): OrderProgress | undefined {
  if (!stream.isTTY) return undefined;
  let bar: cliProgress.SingleBar | null = null;
  const counts = { accepted: 0, rejected: 0, failed: 0, already_submitted: 0 };
  let startedAt = 0;
  let done = 0;
  return {
    start(total) {
      if (total === 0) return;
      startedAt = Date.now();
      done = 0;
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: 'orders [{bar}] {value}/{total} | {rate} orders/s | ETA {eta}s | accepted {accepted} rejected {rejected} failed {failed} already {already_submitted}',
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0, { rate: '0', ...counts });
    },
    tick(status) {
      if (status in counts) counts[status as keyof typeof counts]++;
      done++;
      const seconds = (Date.now() - startedAt) / 1000;
      bar?.increment(1, { rate: seconds > 0 ? (done / seconds).toFixed(0) : '0', ...counts });
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
