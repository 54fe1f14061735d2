/**
 * Access tokens: HS256 JWTs signed and verified with jose, on the sandbox clock (so advancing
 * the clock past the TTL expires them). The signing key is random per start: tokens do not
 * survive a restart, as with a real provider rotating keys; clients simply ask again.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface TokenClaims {
  clientId: string;
  canWrite: boolean;
}

export interface TokenService {
  /** A signed token for valid credentials, null otherwise. */
  issue(clientId: unknown, clientSecret: unknown): Promise<{ token: string; expiresIn: number } | null>;
  /** The claims of a valid, unexpired token, null for anything else (missing, tampered, expired, alg none). */
  verify(token: string): Promise<TokenClaims | null>;
  /** Synchronous answer for a token verified before: claims, null (expired), or undefined (not seen: call verify). */
  verifyCached(token: string): TokenClaims | null | undefined;
  readonly ttlSeconds: number;
}

const ISSUER = 'order-batch-sandbox';
const SCOPE_WRITE = 'orders:read orders:write';
const SCOPE_READ = 'orders:read';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export function createTokenService(options: {
  writer: ClientCredentials;
  reader: ClientCredentials;
  ttlSeconds: number;
  nowMs: () => number;
}): TokenService {
  const key = new Uint8Array(randomBytes(32));
  const clients = [
    { ...options.writer, canWrite: true },
    { ...options.reader, canWrite: false },
  ];
  // Verifying a signature per request would dominate the request cost; a token once verified is
  // remembered with its expiry, which is still checked against the sandbox clock on every use.
  const verified = new Map<string, TokenClaims & { expSeconds: number }>();

  const matchClient = (id: string, secret: string) => {
    const given = digest(secret);
    return clients.find((c) => c.clientId === id && timingSafeEqual(digest(c.clientSecret), given));
  };

  return {
    ttlSeconds: options.ttlSeconds,
    async issue(clientId, clientSecret) {
      if (typeof clientId !== 'string' || typeof clientSecret !== 'string') return null;
      const client = matchClient(clientId, clientSecret);
      if (!client) return null;
      const iat = Math.floor(options.nowMs() / 1000);
      const token = await new SignJWT({ scope: client.canWrite ? SCOPE_WRITE : SCOPE_READ })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setSubject(client.clientId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + options.ttlSeconds)
        .setJti(randomBytes(9).toString('base64url'))
        .sign(key);
      return { token, expiresIn: options.ttlSeconds };
    },
    verifyCached(token) {
      const cached = verified.get(token);
      if (!cached) return undefined;
      return cached.expSeconds > options.nowMs() / 1000 ? cached : null;
    },
    async verify(token) {
      const nowSeconds = options.nowMs() / 1000;
      const cached = verified.get(token);
      if (cached) return cached.expSeconds > nowSeconds ? cached : null;
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, currentDate: new Date(options.nowMs()) });
        if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return null;
        const claims = { clientId: payload.sub, canWrite: payload.scope === SCOPE_WRITE, expSeconds: payload.exp };
        if (verified.size > 50_000) verified.clear();
        verified.set(token, claims);
        return claims;
      } catch {
        return null;
      }
    },
  };
}
