/** The frame of every page: skip link, header and navigation, one main landmark, our CSS and script only. */
import { html, type HtmlValue, type SafeHtml } from '../html.js';

export type Section = 'upload' | 'history' | 'reconcile' | 'none';

export interface PageContext {
  /** The session's CSRF token, for forms and the script's requests. */
  csrf: string;
  isSandbox: boolean;
  /** Where orders go, for the header ("the embedded sandbox", "https://api.example.com"). */
  apiLabel: string;
}

const NAV: { section: Section; href: string; label: string }[] = [
  { section: 'upload', href: '/', label: 'Check a sheet' },
  { section: 'history', href: '/history', label: 'History' },
  { section: 'reconcile', href: '/reconcile', label: 'Reconciliation' },
];

export function layout(options: { title: string; section: Section; ctx: PageContext; body: HtmlValue; head?: SafeHtml }): SafeHtml {
  const { ctx } = options;
  const nav = NAV.map(
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
  <nav aria-label="Main"><ul>${nav}</ul></nav>
  <p class="api-target">${ctx.isSandbox ? html`<span class="badge badge-sandbox">Sandbox</span> ` : ''}Orders go to ${ctx.apiLabel}</p>
</header>
<main id="main" tabindex="-1">
${options.body}
</main>
<footer class="site-footer"><p>order-batch runs on this computer; your sheets and results stay in its work folder.</p></footer>
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
