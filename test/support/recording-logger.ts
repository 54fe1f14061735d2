/** A logger whose lines are kept, as a cron job's stderr keeps them. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger, LogLevel } from '../../src/log.js';

/** One line as pino writes it: its level's number, its message, and the fields logged with it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface RecordingLogger<Line> {
  logger: Logger;
  /** Each line as its JSON object, in the order written. */
  lines: Line[];
  /** Everything written, as written. */
  text(): string;
}

/** `keeps` picks the lines kept in `lines` (all by default); `text()` has them all. */
export function recordingLogger<Line = LogLine>(level: LogLevel = 'info', keeps: (line: Line) => boolean = () => true): RecordingLogger<Line> {
  const lines: Line[] = [];
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const written = chunk.toString('utf8');
      text += written;
      for (const part of written.split('\n')) {
        if (part.trim() === '') continue;
        const line = JSON.parse(part) as Line;
        if (keeps(line)) lines.push(line);
      }
      callback();
    },
  });
  return { logger: pino({ level }, stream), lines, text: () => text };
}

/** pino's number for a warning. */
const WARN = 40;

/**
 * A logger that keeps its warnings alone (not errors), each as its line: the message in `msg` beside
 * its fields, as the user reads it on stderr. The list fills as the warnings are written.
 */
export function recordingWarnings<Line extends LogLine = LogLine>(): { logger: Logger; warnings: Line[] } {
  const { logger, lines } = recordingLogger<Line>('warn', (line) => line.level === WARN);
  return { logger, warnings: lines };
}
