/**
 * The company login (OpenID Connect, authorization code with PKCE) through openid-client. The issuer
 * is discovered when first needed; while its discovery or keys cannot be fetched, the login says why
 * (logged once per cause) and tries again after `retryMs`, so local passwords keep working meanwhile.
 * `state`, `nonce` and the PKCE verifier are made per login and checked by openid-client on return.
 */
import * as oidc from 'openid-client';
import type { Logger } from 'pino';
import { checkIssuerUrl } from './sso-settings.js';

export interface OidcLoginOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  logger: Pick<Logger, 'warn' | 'info'>;
  clock?: () => Date;
  /** How long after a failed discovery the next login tries again; default one minute. */
  retryMs?: number;
}

/** What one login keeps between leaving for the issuer and coming back (one use). */
export interface PendingOidcLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

export type OidcAvailability = { ok: true; config: oidc.Configuration } | { ok: false; reason: string };

export interface OidcLogin {
  /** Where to send the browser, and what to keep for its return; or why the company login is unavailable. */
  start(redirectUri: string): Promise<{ ok: true; url: string; pending: PendingOidcLogin } | { ok: false; reason: string }>;
  /** The verified ID token's claims; throws when any check fails (state, nonce, PKCE, signature, a used code). */
  finish(callbackUrl: URL, pending: PendingOidcLogin): Promise<Record<string, unknown>>;
  /** Fetches the issuer's discovery document now (at start), so a failure is known before the first login. */
  prepare(): Promise<void>;
  /** Why the company login cannot be used now, or null (as far as the last attempt knows). */
  unavailableReason(): string | null;
}

const DEFAULT_RETRY_MS = 60_000;

export function createOidcLogin(options: OidcLoginOptions): OidcLogin {
  const issuer = checkIssuerUrl(options.issuer);
  const clock = options.clock ?? (() => new Date());
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  let config: oidc.Configuration | null = null;
  let failure: { reason: string; at: number } | null = null;
  let discovering: Promise<OidcAvailability> | null = null;

  const discover = async (): Promise<OidcAvailability> => {
    if (config) return { ok: true, config };
    if (failure && clock().getTime() - failure.at < retryMs) return { ok: false, reason: failure.reason };
    discovering ??= oidc
      .discovery(issuer, options.clientId, options.clientSecret, undefined, issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined)
      .then(
        (found): OidcAvailability => {
          config = found;
          if (failure) options.logger.info({ issuer: issuer.href }, 'company login available again');
          failure = null;
          return { ok: true, config: found };
        },
        (error: unknown): OidcAvailability => {
          const reason = describeOidcError(error, issuer);
          if (failure?.reason !== reason) options.logger.warn({ issuer: issuer.href, reason }, 'company login unavailable');
          failure = { reason, at: clock().getTime() };
          return { ok: false, reason };
        },
      )
      .finally(() => (discovering = null));
    return discovering;
  };

  return {
    async start(redirectUri) {
      const found = await discover();
      if (!found.ok) return found;
      const pending: PendingOidcLogin = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier(), redirectUri };
      const url = oidc.buildAuthorizationUrl(found.config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        response_type: 'code',
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { ok: true, url: url.href, pending };
    },
    async finish(callbackUrl, pending) {
      const found = await discover();
      if (!found.ok) throw new Error(found.reason);
      const tokens = await oidc.authorizationCodeGrant(found.config, callbackUrl, {
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        pkceCodeVerifier: pending.codeVerifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('the company login sent no ID token');
      // Many providers keep e-mail and groups out of the ID token and answer them at the userinfo endpoint (its `sub` checked against the token's).
      const userInfo = await oidc.fetchUserInfo(found.config, tokens.access_token, claims.sub);
      return { ...claims, ...pickUserInfo(userInfo) };
    },
    async prepare() {
      await discover();
    },
    unavailableReason() {
      return config ? null : (failure?.reason ?? null);
    },
  };
}

/** What the userinfo endpoint adds: who the person is; never the token's own checks (iss, aud, nonce). */
function pickUserInfo(userInfo: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of ['email', 'email_verified', 'groups'] as const) if (userInfo[key] !== undefined) picked[key] = userInfo[key];
  return picked;
}

/** One line about why the issuer could not be used, naming it; never a secret (the client secret is not in these errors). */
export function describeOidcError(error: unknown, issuer: URL): string {
  const err = error as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  const cause = err.cause?.code ?? err.cause?.message;
  return `${issuer.origin}: ${err.message ?? String(error)}${cause ? ` (${cause})` : ''}`;
}
