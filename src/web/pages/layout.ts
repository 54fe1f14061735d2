/** The frame of every page: skip link, header and navigation, one main landmark, our CSS and script only. */
import { isAllowed, type Permission } from '../../accounts/roles.js';
import type { Visitor } from '../auth/access.js';
import { html, type HtmlValue, type SafeHtml } from '../html.js';

export type Section = 'upload' | 'history' | 'reconcile' | 'users' | 'none';

export interface PageContext {
  /** The session's CSRF token, for forms and the script's requests. */
  csrf: string;
  isSandbox: boolean;
  /** Where orders go, for the header ("the embedded sandbox", "https://api.example.com"). */
  apiLabel: string;
  /** Who is asking (null: nobody logged in yet: the login page shows no navigation). */
  visitor: Visitor | null;
}

/** Whether the page's visitor may do this (forms and buttons they may not use are not shown). */
export function mayDo(ctx: PageContext, permission: Permission): boolean {
  return ctx.visitor !== null && isAllowed(ctx.visitor.role, permission);
}

const NAV: { section: Section; href: string; label: string; permission: Permission }[] = [
  { section: 'upload', href: '/', label: 'Check a sheet', permission: 'view' },
  { section: 'history', href: '/history', label: 'History', permission: 'view' },
  { section: 'reconcile', href: '/reconcile', label: 'Reconciliation', permission: 'view' },
  { section: 'users', href: '/users', label: 'Accounts', permission: 'manageUsers' },
];

/** Who is signed in, and the way out; or, without accounts, that this computer alone is served. */
function renderVisitor(ctx: PageContext): HtmlValue {
  const { visitor } = ctx;
  if (!visitor) return '';
  if (visitor.isLocal) return html`<p class="visitor">Local use, no accounts: this computer only</p>`;
  return html`<form class="visitor" method="post" action="/logout">${csrfField(ctx)}<span>Signed in as <strong>${visitor.name}</strong> (${visitor.role})</span> <button type="submit" class="button-link">Log out</button></form>`;
}

export function layout(options: { title: string; section: Section; ctx: PageContext; body: HtmlValue; head?: SafeHtml }): SafeHtml {
  const { ctx } = options;
  const nav = NAV.filter((item) => mayDo(ctx, item.permission) && !(item.section === 'users' && ctx.visitor?.isLocal)).map(
    (item) => html`<li><a href="${item.href}"${item.section === options.section ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${ctx.csrf}">
<title>${options.title} · order-batch</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
${options.head ?? ''}
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="site-header">
  <p class="brand"><a href="/">order-batch</a></p>
  ${nav.length > 0 ? html`<nav aria-label="Main"><ul>${nav}</ul></nav>` : ''}
  ${renderVisitor(ctx)}
  <p class="api-target">${ctx.isSandbox ? html`<span class="badge badge-sandbox">Sandbox</span> ` : ''}Orders go to ${ctx.apiLabel}</p>
</header>
<main id="main" tabindex="-1">
${options.body}
</main>
<footer class="site-footer"><p>${ctx.visitor?.isLocal ? 'order-batch runs on this computer; your sheets and results stay in its ledger.' : 'Sheets, results and who did what are kept in the ledger this web app shares with the team.'}</p></footer>
</body>
</html>`;
}

/** A hidden CSRF field; it comes first in every form so an upload is refused before its bytes are read. */
export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}

/** Status words with a symbol, so colour is never the only signal. */
export function statusBadge(status: string): SafeHtml {
  const known: Record<string, [string, string]> = {
    valid: ['✓', 'ok'],
    accepted: ['✓', 'ok'],
    already_submitted: ['↺', 'info'],
    in_progress_elsewhere: ['⇄', 'info'],
    invalid: ['✗', 'bad'],
    rejected: ['✗', 'bad'],
    failed: ['!', 'bad'],
    warning: ['⚠', 'warn'],
  };
  const [symbol, tone] = known[status] ?? ['•', 'info'];
  return html`<span class="status status-${tone}"><span aria-hidden="true">${symbol}</span> ${status.replace(/_/g, ' ')}</span>`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/Z$/, ' UTC');
}
