/**
 * What the confirmation files hold, kept on disk while they are written and put in place, and told to
 * the ledger only once they are where they are picked up (write-files.ts). One JSON line per package:
 * `[packageId, trackingNumber, file, ...]`, so the journal grows with the files, never the memory. It
 * lives in the system's temporary folder, outside the folder being written: a remote folder's upload
 * sends every file of that folder, and a crash leaves nothing in the seller's outbox.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MarketplaceStore } from '../../ledger/index.js';
import { FileSink } from './file-sink.js';

/** Journal bytes read (and packages recorded) at once: one parse and one ledger statement per chunk. */
const CHUNK_BYTES = 1 << 20;

export class WrittenJournal {
  private constructor(
    private readonly folder: string,
    private readonly sink: FileSink,
  ) {}

  static async open(parent = tmpdir()): Promise<WrittenJournal> {
    const folder = await mkdtemp(join(parent, 'order-batch-confirmations-'));
    return new WrittenJournal(folder, new FileSink(join(folder, 'written.jsonl')));
  }

  /** The journal line of one package, in every file it went into this run. */
  static lineOf(packageId: string, trackingNumber: string, files: readonly string[]): string {
    return `${JSON.stringify([packageId, trackingNumber, ...files])}\r\n`;
  }

  /** Lines made by lineOf. */
  async write(lines: string): Promise<void> {
    await this.sink.write(lines);
  }

  /** The journal complete on disk (before the files are put in place). */
  async finish(): Promise<void> {
    await this.sink.finish();
  }

  /** Tells the ledger every package the journal holds, a chunk of whole lines at a time, as the JSON array they make. */
  async record(store: MarketplaceStore): Promise<void> {
    let rest = '';
    for await (const chunk of createReadStream(this.sink.path, { encoding: 'utf8', highWaterMark: CHUNK_BYTES })) {
      const text = rest + (chunk as string);
      const end = text.lastIndexOf('\r\n');
      if (end < 0) {
        rest = text;
        continue;
      }
      rest = text.slice(end + 2);
      await store.recordWrittenPackages(`[${text.slice(0, end).replaceAll('\r\n', ',')}]`);
    }
    if (rest !== '') await store.recordWrittenPackages(`[${rest}]`);
  }

  async remove(): Promise<void> {
    await this.sink.discard();
    await rm(this.folder, { recursive: true, force: true });
  }
}
