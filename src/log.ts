/**
 * Logging: pino, JSON lines on stderr for machines, pretty when stderr is a terminal (in colours unless
 * NO_COLOR is set: https://no-color.org).
 * Logs never carry secrets, tokens or shipping addresses: callers log ids and counts only,
 * and the redact list below is the safety net.
 */
import { pino, type Logger } from 'pino';
import { redactUrlsIn } from './redact.js';

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

/** The value with any password inside an address (a ledger URL, FULFILLMENT_BASE_URL) hidden: a string, or an error's message and stack. */
function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('://') ? redactUrlsIn(value) : value;
  if (value instanceof Error && (value.message.includes('://') || value.stack?.includes('://'))) {
    const copy = new Error(redactUrlsIn(value.message));
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : redactUrlsIn(value.stack);
    return copy;
  }
  return value;
}

/** Every top-level field of a line (pino serializes errors after this). */
function redactAddresses(object: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(object)) object[key] = redactValue(value);
  return object;
}

/** `pretty`: one line per entry for a person (a terminal); `colorize`: in colours, unless NO_COLOR asks for none. */
export function createLogger(options: { level: LogLevel; pretty: boolean; colorize: boolean }): Logger {
  const base = {
    level: options.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: null,
    formatters: { log: redactAddresses },
    hooks: {
      logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(this, args.map(redactValue));
      },
    },
  };
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: options.colorize, ignore: 'time', singleLine: true } } });
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/** A logger that writes nothing, the default for library calls and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
