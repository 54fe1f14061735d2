/**
 * Who is asking, and whether they may. With accounts, a request belongs to the account its session
 * is logged in as (role read afresh each request); without accounts (loopback only), to the person at
 * this computer, who may do everything. Each route says what it needs in its config (`access`:
 * 'public', or a permission of accounts/roles.ts; default 'view') and whether it serves a download.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAllowed, type Permission, type Role } from '../../accounts/roles.js';
import type {} from '@fastify/session';
import type { WebSessionData } from './session-store.js';

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
  }
  interface Session extends WebSessionData {}
}

export interface AccessOptions {
  /** Whether accounts are required now (some account exists). */
  hasAccounts(): boolean;
  /** Who the person at this computer is, without accounts (the operating-system user). */
  localName: string;
  /** Answers a refusal: the status, a title and a sentence, as a page or JSON. */
  refuse(request: FastifyRequest, reply: FastifyReply, status: 401 | 403, title: string, message: string): FastifyReply;
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
    const access: Access = config.access ?? 'view';
    const session = request.session;
    if (!options.hasAccounts()) {
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
      return options.refuse(request, reply, 403, 'Not allowed', `Your account (${visitor.name}, ${visitor.role}) may not do this: ask an admin for another role.`);
    }
  });
}

/** A `next` address to return to after logging in: a path of this app only, never another site. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || next.startsWith('/login')) return '/';
  return next;
}
