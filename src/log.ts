/**
 * Logging: pino, JSON lines on stderr for machines, pretty when stderr is a terminal (in colours unless
 * NO_COLOR is set: https://no-color.org).
 * Logs never carry secrets, tokens or shipping addresses: callers log ids and counts only,
 * and the redact list below is the safety net.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const REDACT = [
  '*.clientSecret',
  '*.secret',
  '*.token',
  '*.accessToken',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  '*.shippingAddress',
  '*.addressLines',
  '*.phone',
  '*.email',
];

/** `pretty`: one line per entry for a person (a terminal); `colorize`: in colours, unless NO_COLOR asks for none. */
export function createLogger(options: { level: LogLevel; pretty: boolean; colorize: boolean }): Logger {
  const base = { level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: null };
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: options.colorize, ignore: 'time', singleLine: true } } });
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/** A logger that writes nothing, the default for library calls and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
