/**
 * The best human message in an error response, whatever its shape. PRODUCT.md section 6 fixes
 * `{ message, errors?: [{ field?, message }], requestId }`, but proxies, gateways and frameworks in
 * front of an API answer with text, HTML, RFC 7807 problem details or OAuth-style errors, and the
 * person reading the result sheet deserves the sentence the server meant, not "Bad Request".
 */
import { STATUS_CODES } from 'node:http';
import { HttpError, TransportError } from './errors.js';

/** Messages end up in sheet cells and log lines: long enough to be useful, short enough to read. */
const MAX_MESSAGE_LENGTH = 500;

export interface DescribedBody {
  /** Parsed JSON when the text is JSON, otherwise the text itself ('' when empty). */
  body: unknown;
  message: string;
}

/** The status line's words for a code, e.g. 502 -> "Bad Gateway". */
export function describeStatus(status: number): string {
  return STATUS_CODES[status] ?? `HTTP ${status}`;
}

/**
 * Why a request the run may retry failed, by cause: the API answered but refused for now (429), the
 * API answered with a server error (5xx, 408), or no answer came (refused, dropped, timed out).
 */
export type ApiTrouble = 'rate_limited' | 'server_error' | 'unreachable';

export function apiTroubleOf(error: unknown): ApiTrouble | null {
  if (error instanceof TransportError) return 'unreachable';
  if (error instanceof HttpError) return error.status === 429 ? 'rate_limited' : error.status === 408 || error.status >= 500 ? 'server_error' : null;
  return null;
}

/**
 * A transient failure as a clause for "Not sent: ..." or "(...)", worded by its cause: an API that
 * answered 429 was reached (it refused for now), unlike one that could not be connected to.
 */
export function describeApiTrouble(error: unknown): string {
  // Quoted inside parentheses: its own closing full stop would end the sentence too early.
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  if (error instanceof HttpError) {
    const answered = `HTTP ${error.status}: ${message}`;
    switch (apiTroubleOf(error)) {
      case 'rate_limited':
        return `the API rate-limited the requests (${answered})`;
      case 'server_error':
        return `the API answered with server errors (${answered})`;
      default:
        return `the API answered ${answered}`;
    }
  }
  if (error instanceof TransportError) {
    return error.isSent ? `the API did not answer (${message})` : `the API could not be reached (${message})`;
  }
  return `the API failed (${message})`;
}

/** Parses text as JSON when it looks like JSON (whatever the content type says), else undefined. */
export function parseJsonLenient(text: string): { value: unknown } | undefined {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[' && start !== '"') return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

export function describeErrorBody(text: string, contentType: string | undefined, status: number): DescribedBody {
  const trimmed = text.trim();
  if (trimmed === '') return { body: '', message: describeStatus(status) };
  const json = parseJsonLenient(trimmed);
  if (json) return { body: json.value, message: truncate(messageFromJson(json.value) ?? describeStatus(status)) };
  if (isHtml(trimmed, contentType)) return { body: text, message: truncate(titleOfHtml(trimmed) ?? describeStatus(status)) };
  return { body: text, message: truncate(collapse(trimmed)) };
}

/** A request id the server put in the body or a header, for support tickets and the result sheet. */
export function findRequestId(body: unknown, headerValue: string | undefined): string | undefined {
  if (isRecord(body)) {
    for (const key of ['requestId', 'RequestId', 'request_id']) {
      const value = body[key];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return headerValue !== undefined && headerValue !== '' ? headerValue : undefined;
}

function messageFromJson(value: unknown, depth = 0): string | undefined {
  if (depth > 3) return undefined;
  if (typeof value === 'string') return nonEmpty(collapse(value));
  if (Array.isArray(value)) return joinDetails(value.map((v) => messageFromJson(v, depth + 1)));
  if (!isRecord(value)) return undefined;
  const main = mainMessage(value, depth);
  const details = detailsOf(value.errors ?? value.Errors ?? value.details, depth);
  if (main !== undefined && details !== undefined && details !== main) return `${main} (${details})`;
  return main ?? details;
}

/** The headline of an error object: message, RFC 7807 title/detail, OAuth error/error_description, ... */
function mainMessage(obj: Record<string, unknown>, depth: number): string | undefined {
  const message = text(obj.message) ?? text(obj.Message);
  if (message !== undefined) return message;
  const title = text(obj.title);
  const detail = text(obj.detail);
  if (title !== undefined || detail !== undefined) return title && detail ? `${title}: ${detail}` : (title ?? detail);
  const description = text(obj.error_description);
  if (typeof obj.error === 'string') return description ? `${collapse(obj.error)}: ${description}` : nonEmpty(collapse(obj.error));
  if (isRecord(obj.error)) return messageFromJson(obj.error, depth + 1);
  return description ?? text(obj.errorMessage) ?? text(obj.msg) ?? text(obj.description);
}

/** `errors` as [{ field, message }], as ["text"], or as ASP.NET's { "Field": ["text", ...] }. */
function detailsOf(errors: unknown, depth: number): string | undefined {
  if (Array.isArray(errors)) {
    return joinDetails(
      errors.map((item) => {
        if (!isRecord(item)) return messageFromJson(item, depth + 1);
        const field = text(item.field) ?? text(item.Field) ?? text(item.path) ?? text(item.property);
        const message = text(item.message) ?? text(item.Message) ?? messageFromJson(item, depth + 1);
        return field && message ? `${field}: ${message}` : message;
      }),
    );
  }
  if (isRecord(errors)) {
    return joinDetails(
      Object.entries(errors).map(([field, messages]) => {
        const message = messageFromJson(messages, depth + 1);
        return message === undefined ? undefined : `${field}: ${message.replaceAll('; ', ', ')}`;
      }),
    );
  }
  return undefined;
}

function joinDetails(parts: (string | undefined)[]): string | undefined {
  const kept = parts.filter((p): p is string => p !== undefined && p !== '');
  return kept.length === 0 ? undefined : kept.join('; ');
}

function isHtml(text: string, contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().includes('html') || /^<(!doctype|html|head|body|h1|title)\b/i.test(text);
}

function titleOfHtml(html: string): string | undefined {
  for (const pattern of [/<title[^>]*>([\s\S]*?)<\/title>/i, /<h1[^>]*>([\s\S]*?)<\/h1>/i]) {
    const match = pattern.exec(html);
    const inner = match?.[1] === undefined ? undefined : nonEmpty(collapse(decodeEntities(match[1].replace(/<[^>]*>/g, ' '))));
    if (inner !== undefined) return inner;
  }
  return undefined;
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = Number(name.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[name.toLowerCase()] ?? whole;
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? nonEmpty(collapse(value)) : undefined;
}

function nonEmpty(value: string): string | undefined {
  return value === '' ? undefined : value;
}

function collapse(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

function truncate(value: string): string {
  return value.length <= MAX_MESSAGE_LENGTH ? value : `${value.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
