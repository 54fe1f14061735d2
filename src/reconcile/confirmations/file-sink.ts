/**
 * One confirmation file being written: text is buffered and written with backpressure to a temporary
 * file beside it, renamed into place by `finish`; `discard` removes it. Several are open at once (one
 * per marketplace), so each is a sink of its own rather than one writeFileAtomically call.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';

/** Bytes gathered before one write: few large writes, memory bounded. */
const FLUSH_AT = 64 * 1024;

export class FileSink {
  private readonly tmp: string;
  private readonly out: WriteStream;
  private buffer = '';
  private failure: Error | null = null;
  rows = 0;

  constructor(readonly path: string) {
    this.tmp = `${path}.${process.pid}.partial`;
    this.out = createWriteStream(this.tmp);
    this.out.on('error', (error) => {
      this.failure ??= error;
    });
  }

  async writeLine(line: string): Promise<void> {
    await this.write(`${line}\r\n`);
  }

  /** Adds text (whole lines, CRLF-ended); it reaches the disk once enough has gathered. */
  async write(text: string): Promise<void> {
    this.buffer += text;
    if (this.buffer.length >= FLUSH_AT) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    const text = this.buffer;
    this.buffer = '';
    if (text === '') return;
    if (!this.out.write(text)) await this.until('drain');
    if (this.failure) throw this.failure;
  }

  async finish(): Promise<void> {
    await this.flush();
    this.out.end();
    await this.until('finish');
    if (this.failure) throw this.failure;
    await rename(this.tmp, this.path);
  }

  /** Resolves on `event`, or on a stream error (kept in `failure`); no listener outlives the wait. */
  private until(event: 'drain' | 'finish'): Promise<void> {
    if (this.failure) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.out.off(event, done);
        this.out.off('error', done);
        resolve();
      };
      this.out.on(event, done);
      this.out.on('error', done);
    });
  }

  async discard(): Promise<void> {
    this.out.destroy();
    await rm(this.tmp, { force: true });
  }
}
