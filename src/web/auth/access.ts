/**
 * Who is asking, and whether they may. With accounts, a request belongs to the account its session
 * is logged in as (role read afresh each request); without accounts, on a server that serves this
 * computer only (loopback, no proxy), to the person at this computer, who may do everything. Whether
 * a server may ever work without accounts is decided once, from how it listens: a server others can
 * reach whose last account is removed answers every page with how to add one, never opens up.
 * Each route says what it needs in its config (`access`: 'public', or a permission of
 * accounts/roles.ts; default 'view') and whether it serves a download.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAllowed, type Permission, type Role } from '../../accounts/roles.js';
import type {} from '@fastify/session';
import type { WebSessionData } from './session-store.js';
import { API_PREFIX } from '../api-prefix.js';

export interface Visitor {
  name: string;
  role: Role;
  /** The one-person mode: no accounts, this computer only. */
  isLocal: boolean;
}

export type Access = 'public' | Permission;

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is asking; null: nobody logged in (with accounts). Set before any handler runs. */
    visitor: Visitor | null;
  }
  interface FastifyContextConfig {
    /** What the route needs; default 'view'. */
    access?: Access;
    /** A file download: refused with 401, never sent to the login page. */
    isDownload?: boolean;
    /** The page's style or script: served even when nothing else is (so the page saying why looks right). */
    isAsset?: boolean;
  }
  interface Session extends WebSessionData {}
}

export interface AccessOptions {
  /** Whether some account exists, read afresh when the last reading is a few seconds old. */
  hasAccounts(): Promise<boolean>;
  /**
   * Whether the server may work without accounts: it listens on a loopback address and not behind a
   * proxy. Decided at start, never by a later count of accounts.
   */
  mayServeAlone: boolean;
  /** What to do when there is no account on a server others can reach: how to add one. */
  noAccountsMessage: string;
  /** Who the person at this computer is, without accounts (the operating-system user). */
  localName: string;
  /** Answers a refusal: the status, a title and a sentence, as a page or JSON. */
  refuse(request: FastifyRequest, reply: FastifyReply, status: 401 | 403 | 503, title: string, message: string): FastifyReply;
  /** A role-protected action refused to an account (403): recorded in the audit trail. */
  onForbidden(request: FastifyRequest, access: Permission): Promise<void>;
  wantsJson(request: FastifyRequest): boolean;
}

export function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The session's CSRF token, made when the session first needs one. */
export function csrfTokenOf(request: FastifyRequest): string {
  const session = request.session;
  if (!session) return '';
  session.csrf ??= newCsrfToken();
  return session.csrf;
}

export function installAccess(app: FastifyInstance, options: AccessOptions): void {
  app.decorateRequest('visitor', null);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config ?? {};
    // The HTTP API has a door of its own (web/api/bearer.ts): tokens, never sessions; its unknown paths answer as the API does.
    if (config.isApi || request.url.startsWith(`${API_PREFIX}/`)) return;
    const access: Access = config.access ?? 'view';
    const session = request.session;
    const hasAccounts = await options.hasAccounts();
    if (!hasAccounts && !options.mayServeAlone) {
      // Reachable by others and nobody to log in as: nothing is served until an account is added.
      if (config.isAsset) return;
      return options.refuse(request, reply, 503, 'No accounts', options.noAccountsMessage);
    }
    if (!hasAccounts) {
      request.visitor = { name: options.localName, role: 'admin', isLocal: true };
    } else {
      request.visitor = session?.user && session.role ? { name: session.user, role: session.role, isLocal: false } : null;
    }
    if (access === 'public') return;
    const visitor = request.visitor;
    if (!visitor) {
      if (!config.isDownload && !options.wantsJson(request)) {
        const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
        return reply.code(303).header('cache-control', 'no-store').redirect(`/login${next}`, 303);
      }
      return options.refuse(request, reply, 401, 'Log in first', 'This needs an account: log in at /login.');
    }
    if (!isAllowed(visitor.role, access)) {
      await options.onForbidden(request, access);
      return options.refuse(request, reply, 403, 'Not allowed', `Your account (${visitor.name}, ${visitor.role}) may not do this: ask an admin for another role.`);
    }
  });
}

/** Where `next` addresses are resolved: any origin serves, as only the path of a same-origin result is kept. */
const OWN_ORIGIN = 'http://order-batch.invalid';

/**
 * A `next` address to return to after logging in: a path of this app only, never another site.
 * Browsers drop tabs and newlines from an address and read a backslash as a slash, so `/\t/evil`
 * is `//evil`: anything but one leading slash and printable characters is refused, and what is left
 * must resolve, against this app's own origin, to that origin.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048 || !next.startsWith('/') || next.startsWith('//') || /[\u0000-\u001f\u007f\\]/.test(next)) return '/';
  let resolved: URL;
  try {
    resolved = new URL(next, OWN_ORIGIN);
  } catch {
    return '/';
  }
  if (resolved.origin !== OWN_ORIGIN || !resolved.pathname.startsWith('/') || resolved.pathname.startsWith('//') || resolved.pathname.startsWith('/login')) return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
