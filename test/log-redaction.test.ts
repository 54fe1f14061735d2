import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it, vi } from 'vitest';
import { createLogger } from '../src/log.js';

it('never writes the password of an address to the log, in a field, a message or an error', () => {
  const lines: string[] = [];
  // The logger writes to fd 2; catch what pino's destination writes there.
  const write = vi.spyOn(pino, 'destination').mockReturnValue(new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) as never);
  try {
    const logger = createLogger({ level: 'info', pretty: false, colorize: false });
    logger.info({ ledger: 'postgres://ob:hunter2@db/ledger', orders: 3 }, 'opened postgresql://ob:hunter2@/ledger?host=/run/postgresql');
    logger.warn({ err: new Error('connect failed: https://ops:hunter2@api.example.com/') }, 'retrying');
    logger.error(new Error('gave up on https://ops:hunter2@api.example.com/'));
  } finally {
    write.mockRestore();
  }
  const text = lines.join('');
  expect(text).not.toContain('hunter2');
  expect(text).toContain('"ledger":"postgres://ob:***@db/ledger"');
  expect(text).toContain('opened postgresql://ob:***@/ledger?host=/run/postgresql');
  expect(text).toContain('connect failed: https://ops:***@api.example.com/');
  expect(text).toContain('gave up on https://ops:***@api.example.com/');
  expect(lines).toHaveLength(3);
});
