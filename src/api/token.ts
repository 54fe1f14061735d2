/**
 * Bearer tokens (api-spec.md section 5): fetched by either endpoint, cached, refreshed a margin
 * before expiry on the injected clock, and fetched at most once at a time however many calls wait.
 * Tokens and secrets never reach logs or errors: failed token replies are redacted before they are
 * attached to an error.
 */
import { decodeJwt } from 'jose';
import { FormData } from 'undici';
import { LIMITS } from '../contract/limits.js';
import type { AuthFlow } from './types.js';
import { describeErrorBody, describeStatus, findRequestId, parseJsonLenient } from './error-message.js';
import { AuthError, ForbiddenError, HttpError, isTransientStatus } from './errors.js';
import type { HttpTransport } from './http.js';
import { parseRetryAfterMs } from './retry.js';

export interface IssuedToken {
  token: string;
  expiresAtMs: number;
}

export interface TokenCache {
  /** A token valid for at least the refresh margin; shares one in-flight request among callers. */
  getToken(): Promise<string>;
  /** Forget `token` if it is still the cached one (a secured endpoint refused it). */
  invalidate(token: string): void;
}

export function createTokenCache(options: { fetchToken: () => Promise<IssuedToken>; now: () => number; refreshMarginMs: number }): TokenCache {
  let current: { token: string; refreshAtMs: number } | null = null;
  let inFlight: Promise<string> | null = null;

  const refresh = async (): Promise<string> => {
    const requestedAt = options.now();
    const issued = await options.fetchToken();
    // A token living shorter than twice the margin would be "due" at once; refresh it at half-life instead.
    const lifetimeMs = Math.max(0, issued.expiresAtMs - requestedAt);
    const margin = Math.min(options.refreshMarginMs, lifetimeMs / 2);
    current = { token: issued.token, refreshAtMs: issued.expiresAtMs - margin };
    return issued.token;
  };

  return {
    getToken() {
      if (current && options.now() < current.refreshAtMs) return Promise.resolve(current.token);
      inFlight ??= refresh().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    invalidate(token) {
      if (current?.token === token) current = null;
    },
  };
}

/**
 * When a token expires, in ms on the local clock. The oauth endpoint says expiresIn; getToken does
 * not, so the JWT's claims decide: exp - iat when both are there (immune to clock skew between us
 * and the server), else exp itself; without a usable claim, the documented 3600 s.
 */
export function tokenExpiresAtMs(token: string, expiresInSeconds: number | undefined, nowMs: number): number {
  if (expiresInSeconds !== undefined && Number.isFinite(expiresInSeconds) && expiresInSeconds > 0) return nowMs + expiresInSeconds * 1000;
  const fallback = nowMs + LIMITS.tokenLifetimeSeconds * 1000;
  let claims: { exp?: unknown; iat?: unknown };
  try {
    claims = decodeJwt(token);
  } catch {
    return fallback;
  }
  const { exp, iat } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return fallback;
  if (typeof iat === 'number' && Number.isFinite(iat) && exp > iat) return nowMs + (exp - iat) * 1000;
  return exp * 1000 > nowMs ? exp * 1000 : fallback;
}

export const TOKEN_PATHS: Record<AuthFlow, string> = {
  oauth: '/api/v0/oauth/token',
  getToken: '/api/v0/auth/getToken',
};

/**
 * Asks the token endpoint of `flow` for a token. Throws AuthError on 401 (`credentials`) and on an
 * answer a retry will not change (`endpoint`: a 404, an HTML login page, a 2xx without a token),
 * ForbiddenError on 403, and a retryable HttpError on 408, 429 and 5xx.
 */
export async function requestToken(
  transport: HttpTransport,
  flow: AuthFlow,
  credentials: { clientId: string; clientSecret: string },
  now: () => number,
): Promise<IssuedToken> {
  const path = TOKEN_PATHS[flow];
  const reply =
    flow === 'oauth'
      ? await transport.send({ method: 'POST', path, body: oauthForm(credentials), stage: 'token' })
      : await transport.send({
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientId: credentials.clientId, secret: credentials.clientSecret }),
          stage: 'token',
        });
  const init = { method: 'POST', url: reply.url, stage: 'token' as const, status: reply.status };
  const scrub = (value: unknown): unknown => redactTokens(value, [credentials.clientSecret]);
  if (reply.status < 200 || reply.status > 299) {
    const described = describeErrorBody(reply.text, reply.headers['content-type'], reply.status);
    const message = scrub(described.message) as string;
    const safe = { ...init, body: scrub(described.body), requestId: findRequestId(described.body, reply.headers['x-request-id']) };
    if (reply.status === 401) throw new AuthError(`The API refused the client credentials: ${message}`, { ...safe, reason: 'credentials' });
    if (reply.status === 403) throw new ForbiddenError(`The API refused to issue a token: ${message}`, safe);
    if (!isTransientStatus(reply.status)) {
      const location = reply.headers.location ? `, redirecting to ${scrub(reply.headers.location) as string}` : '';
      const answered = `answered ${reply.status} ${describeStatus(reply.status)}${message === describeStatus(reply.status) ? '' : ` ("${message}")`}${location}`;
      throw new AuthError(endpointProblem(reply.url, answered, flow), { ...safe, reason: 'endpoint' });
    }
    const retryAfterMs = parseRetryAfterMs(reply.headers['retry-after'], now());
    throw new HttpError(`Token request failed: ${message}`, { ...safe, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  const parsed = parseJsonLenient(reply.text);
  const field = flow === 'oauth' ? 'accessToken' : 'token';
  const token = isRecord(parsed?.value) ? parsed.value[field] : undefined;
  if (typeof token !== 'string' || token === '') {
    // A non-JSON body might be a bare token: never keep it.
    const body = parsed ? scrub(parsed.value) : `[${reply.text.length} characters that are not JSON]`;
    const contentType = reply.headers['content-type'] ?? '';
    const what = parsed
      ? `without a usable ${field}`
      : /html/i.test(contentType) || /^\s*</.test(reply.text)
        ? 'with an HTML page (a login page, or another site?), not a token'
        : `with text that is not JSON${contentType ? ` (${contentType})` : ''}, not a token`;
    throw new AuthError(endpointProblem(reply.url, `answered ${reply.status} ${what}`, flow), { ...init, body, reason: 'endpoint' });
  }
  const expiresIn = flow === 'oauth' && isRecord(parsed?.value) && typeof parsed.value.expiresIn === 'number' ? parsed.value.expiresIn : undefined;
  return { token, expiresAtMs: tokenExpiresAtMs(token, expiresIn, now()) };
}

/** The one sentence for a token endpoint that cannot give a token: where, what it said, what to check. */
function endpointProblem(url: string, answered: string, flow: AuthFlow): string {
  const other: AuthFlow = flow === 'oauth' ? 'getToken' : 'oauth';
  return (
    `The token endpoint ${url} ${answered}, so the API cannot be used. ` +
    `Check FULFILLMENT_BASE_URL (the API's address, e.g. https://api.example.com) and FULFILLMENT_AUTH ` +
    `(this run used ${flow}; the other flow is ${other}), or baseUrl and auth in --config.`
  );
}

function oauthForm(credentials: { clientId: string; clientSecret: string }): FormData {
  const form = new FormData();
  form.append('GrantType', 'client_credentials');
  form.append('ClientId', credentials.clientId);
  form.append('ClientSecret', credentials.clientSecret);
  return form;
}

const SECRET_KEY = /token|secret|password/i;
/** Three base64url segments starting like a JSON header: a JWT, wherever it hides in a text. */
const JWT_PATTERN = /eyJ[\w-]*\.[\w-]+\.[\w-]*/g;

/**
 * A copy of a token endpoint's answer with token- or secret-named fields, JWT-looking strings and
 * the given secrets blanked out: that answer is the one place a token could slip into an error.
 */
export function redactTokens(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value, secrets);
  if (depth > 5) return '[redacted]';
  if (Array.isArray(value)) return value.map((v) => redactTokens(v, secrets, depth + 1));
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) && v !== null && typeof v !== 'object' ? '[redacted]' : redactTokens(v, secrets, depth + 1)]),
  );
}

function scrubText(text: string, secrets: readonly string[]): string {
  let out = text.replace(JWT_PATTERN, '[redacted]');
  for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, '[redacted]');
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
