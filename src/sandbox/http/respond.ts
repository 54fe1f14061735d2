/**
 * Answers: content negotiation (api-spec 4: application/json by default, text/json and text/plain
 * on request; the body is the same JSON text under each), the requestId on every answer, and the
 * "reply lost" fault (the work is done, then the connection is dropped instead of answering).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenClaims } from '../auth.js';
import type { LatencyClock } from '../faults.js';

export const RESPONSE_TYPES = ['application/json', 'text/json', 'text/plain'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** Per-request facts the sandbox keeps on the request (declared with decorateRequest). */
export interface SandboxRequestFields {
  sbType: ResponseType;
  sbLoseReply: boolean;
  sbClient: TokenClaims | null;
  /** Request logging is on: answer through fastify's reply so the response is logged. */
  sbLogged: boolean;
  /** The instant, on sbLatencyClock, before which no answer leaves (injected latency); 0 for none. */
  sbReplyAt: number;
  /** The real time latency is measured in, when there is latency (unset before the hooks ran). */
  sbLatencyClock: LatencyClock | null | undefined;
  /** The sandbox clock: the Date header of the answer tells its time, not the real one. */
  sbNowMs: (() => number) | null;
}

export type SandboxRequest = FastifyRequest & SandboxRequestFields;

export function asSandboxRequest(request: FastifyRequest): SandboxRequest {
  return request as SandboxRequest;
}

/** The response type for an Accept header, or null when none of ours is acceptable (406). */
export function negotiateResponseType(accept: string | undefined): ResponseType | null {
  if (!accept || accept === 'application/json' || accept === '*/*') return 'application/json';
  let best: ResponseType | null = null;
  let bestQ = 0;
  for (const part of accept.split(',')) {
    const [rawType = '', ...params] = part.split(';');
    const type = rawType.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if (k?.trim() === 'q') q = Number(v);
    }
    if (!(q > 0)) continue;
    let match: ResponseType | null = null;
    if ((RESPONSE_TYPES as readonly string[]).includes(type)) match = type as ResponseType;
    else if (type === '*/*' || type === 'application/*') match = 'application/json';
    else if (type === 'text/*') match = 'text/json';
    if (match && q > bestQ) {
      best = match;
      bestQ = q;
    }
  }
  return best;
}

/**
 * Sends JSON text with the negotiated content type, or drops the connection for a lost-reply fault.
 * The answer is written straight to the socket (reply.hijack): the sandbox has no onSend hooks or
 * serializers to run, and skipping them is a good part of its throughput (see src/bench/sandbox.ts).
 * With request logging on, the ordinary path is kept so fastify logs the response.
 */
export function sendText(request: FastifyRequest, reply: FastifyReply, status: number, json: string): FastifyReply {
  const r = asSandboxRequest(request);
  if (r.sbLoseReply) {
    reply.hijack();
    return atReplyTime(request, reply, () => request.raw.socket?.destroy());
  }
  const contentType = `${r.sbType ?? 'application/json'}; charset=utf-8`;
  if (r.sbLogged) return atReplyTime(request, reply, () => reply.code(status).header('content-type', contentType).header('date', dateOf(r)).send(json));
  const headers = reply.getHeaders() as Record<string, string | number | string[]>;
  headers['content-type'] = contentType;
  headers['content-length'] = Buffer.byteLength(json);
  reply.hijack();
  return atReplyTime(request, reply, () => {
    headers.date = dateOf(r);
    reply.raw.writeHead(status, headers);
    reply.raw.end(json);
  });
}

/**
 * Runs `answer` once the request's injected latency has passed (at once without latency). The
 * latency counts from the request's arrival and the work is done meanwhile, as a remote API's
 * would be: an answer leaves `latencyMs` after its request came in, not that plus the handling.
 * A client that gives up (or a sandbox that closes) does not leave the timer behind.
 */
export function atReplyTime(request: FastifyRequest, reply: FastifyReply, answer: () => unknown): FastifyReply {
  const { sbReplyAt: due, sbLatencyClock: clock } = asSandboxRequest(request);
  // No latency, or a request answered before the hooks ran (a URL that cannot be decoded): at once.
  const first = clock ? due - clock.now() : 0;
  if (!clock || !(first > 0)) {
    answerThisTurn(request, answer);
    return reply;
  }
  const socket = request.raw.socket;
  // Gone while the request was handled: no one to answer, and no timer to keep the sandbox up.
  if (socket?.destroyed) return reply;
  let timer: { cancel(): void };
  const forget = () => timer.cancel();
  // Timers count from the event loop's idea of now, which can lag the real one: a timer that fires
  // early is set again for what is left, so no answer leaves before its time.
  const wait = () => {
    const left = due - clock.now();
    if (left > 0) {
      timer = clock.setTimer(wait, Math.ceil(left));
      return;
    }
    socket?.off('close', forget);
    // With the others whose time came in this turn, and an answer that cannot be written drops its connection.
    answerThisTurn(request, answer);
  };
  socket?.once('close', forget);
  timer = clock.setTimer(wait, Math.ceil(first));
  return reply;
}

/** Answers due now, written together once this turn's I/O has been handled (answerThisTurn). */
const dueNow: { request: FastifyRequest; answer: () => unknown }[] = [];

function writeDueAnswers(): void {
  // Taken first: an answer that fails to write must not keep the others from being written.
  const due = dueNow.splice(0);
  for (const { request, answer } of due) {
    try {
      answer();
    } catch {
      // Its client gets a dropped connection, not a wait for an answer that will not come.
      request.raw.socket?.destroy();
    }
  }
}

/**
 * Writes an answer that is due now, together with the others due in this turn of the event loop
 * (after its I/O callbacks, in request order). Requests that arrive together are all handled before
 * any answer goes out, so a client woken by the first answer finds the rest already there: each
 * answer written on its own woke the client once per answer, which cost more CPU on loopback than
 * the sandbox's own handling (src/bench/sandbox.ts, order creation on this 2-core machine: a median
 * 0.51 of the ceiling before, 0.60 after). The delay is the rest of one turn: microseconds.
 */
function answerThisTurn(request: FastifyRequest, answer: () => unknown): void {
  if (dueNow.push({ request, answer }) === 1) setImmediate(writeDueAnswers);
}

/**
 * Sends a cached head (Buffer) followed by a small tail: big cached pages are written as they are,
 * without being copied into a new string and encoded again for every request.
 */
export function sendCachedHead(request: FastifyRequest, reply: FastifyReply, status: number, head: Buffer, tail: string): FastifyReply {
  const r = asSandboxRequest(request);
  if (r.sbLoseReply || r.sbLogged) return sendText(request, reply, status, head.toString('utf8') + tail);
  const tailBytes = Buffer.from(tail, 'utf8');
  const headers = reply.getHeaders() as Record<string, string | number | string[]>;
  headers['content-type'] = `${r.sbType ?? 'application/json'}; charset=utf-8`;
  headers['content-length'] = head.length + tailBytes.length;
  reply.hijack();
  return atReplyTime(request, reply, () => {
    headers.date = dateOf(r);
    reply.raw.writeHead(status, headers);
    reply.raw.write(head);
    reply.raw.end(tailBytes);
  });
}

/** Parts (orders of a list-orders answer) written per turn of the event loop by sendTextParts. */
export const PARTS_PER_WRITE = 500;

/**
 * Sends `head`, the parts joined by commas, then `tail`, a slice of parts per turn of the event
 * loop (and at the socket's pace once its buffer is full), chunked: other requests are answered
 * while a big answer goes out, as a remote API's would be. Joining and encoding 40,000 orders
 * (25 MB) at once stopped the sandbox for about 60 ms.
 */
export function sendTextParts(request: FastifyRequest, reply: FastifyReply, status: number, head: string, parts: readonly string[], tail: string): FastifyReply {
  const r = asSandboxRequest(request);
  if (r.sbLoseReply || r.sbLogged || parts.length <= PARTS_PER_WRITE) return sendText(request, reply, status, head + parts.join(',') + tail);
  const headers = reply.getHeaders() as Record<string, string | number | string[]>;
  headers['content-type'] = `${r.sbType ?? 'application/json'}; charset=utf-8`;
  reply.hijack();
  return atReplyTime(request, reply, () => {
    headers.date = dateOf(r);
    const res = reply.raw;
    res.writeHead(status, headers);
    // As for an answer written at once: its client gets a dropped connection, not a hang.
    writeInSlices(res, head, parts, tail, () => request.raw.socket?.destroy());
  });
}

/** What writeInSlices writes to: an http.ServerResponse. */
export interface SliceSink {
  readonly destroyed: boolean;
  write(text: string): boolean;
  end(text: string): unknown;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * `head`, the parts joined by commas, then `tail`: PARTS_PER_WRITE parts per turn of the event loop,
 * and after 'drain' when the sink's buffer is full. `onError` when a write throws.
 */
export function writeInSlices(res: SliceSink, head: string, parts: readonly string[], tail: string, onError: () => void): void {
  let next = 0;
  const writeSlice = (): void => {
    try {
      if (res.destroyed) return;
      const end = Math.min(parts.length, next + PARTS_PER_WRITE);
      const text = (next === 0 ? head : ',') + parts.slice(next, end).join(',') + (end === parts.length ? tail : '');
      next = end;
      if (end === parts.length) res.end(text);
      else if (res.write(text)) setImmediate(writeSlice);
      // A socket that takes a slice at once still reports 'drain' in this very turn (on the
      // next tick): the next slice waits for the next turn all the same. Chained on 'drain'
      // alone, 25 MB went out in one go, and every other request waited about 90 ms.
      else res.once('drain', () => setImmediate(writeSlice));
    } catch {
      onError();
    }
  };
  writeSlice();
}

let cachedDate = { second: Number.NaN, text: '' };

/**
 * The HTTP `Date` header for a simulated instant (IMF-fixdate, whole seconds): the sandbox's clock,
 * not node's real-time one, so a client can tell what time the API thinks it is. One string per second.
 */
export function httpDateOf(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedDate.second) cachedDate = { second, text: new Date(second * 1000).toUTCString() };
  return cachedDate.text;
}

/** The Date of an answer as it leaves (after any injected latency, after a clock move it made). */
function dateOf(r: SandboxRequest): string {
  return httpDateOf(r.sbNowMs ? r.sbNowMs() : Date.now());
}

/** Adds the requestId to `body` and sends it. */
export function sendJson(request: FastifyRequest, reply: FastifyReply, status: number, body: Record<string, unknown>): FastifyReply {
  body.requestId = request.id;
  return sendText(request, reply, status, JSON.stringify(body));
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  errors?: { field?: string; message: string }[],
): FastifyReply {
  const body: Record<string, unknown> = { message };
  if (errors && errors.length > 0) body.errors = errors;
  return sendJson(request, reply, status, body);
}
