/** A logger whose lines are kept, as a cron job's stderr keeps them. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger, LogLevel } from '../../src/log.js';

export interface RecordingLogger<Line> {
  logger: Logger;
  /** Each line as its JSON object, in the order written. */
  lines: Line[];
  /** Everything written, as written. */
  text(): string;
}

export function recordingLogger<Line = Record<string, unknown>>(level: LogLevel = 'info'): RecordingLogger<Line> {
  const lines: Line[] = [];
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const written = chunk.toString('utf8');
      text += written;
      for (const line of written.split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Line);
      callback();
    },
  });
  return { logger: pino({ level }, stream), lines, text: () => text };
}
