/** The login form (PRODUCT.md section 8: fields `username` and `password`). */
import { html, type SafeHtml } from '../html.js';
import { layout, type PageContext } from './layout.js';

/** The company login beside (or instead of) passwords: null without one. */
export type CompanyLogin = { isOnly: boolean; unavailable: string | null } | null;

export function renderLoginPage(ctx: PageContext, options: { next: string; username?: string; error?: string; notice?: string; company?: CompanyLogin }): SafeHtml {
  const company = options.company ?? null;
  const companyPart = company
    ? html`<p><a class="button${company.isOnly ? ' button-primary' : ''}" href="/login/oidc?next=${encodeURIComponent(options.next)}">Sign in with your company account</a></p>
${company.unavailable ? html`<p class="help" role="status">company login unavailable: ${company.unavailable}</p>` : ''}`
    : '';
  const body = html`<div class="login">
<h1>Log in</h1>
${options.error ? html`<div class="notice notice-bad" role="alert"><p>${options.error}</p></div>` : ''}
${options.notice ? html`<div class="notice notice-info" role="status"><p>${options.notice}</p></div>` : ''}
${companyPart}
${company?.isOnly ? '' : passwordForm(options)}
</div>`;
  return layout({ title: 'Log in', section: 'none', ctx, body });
}

function passwordForm(options: { next: string; username?: string }): SafeHtml {
  return html`<form method="post" action="/login">
  <input type="hidden" name="next" value="${options.next}">
  <label for="username">Account name</label>
  <input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${options.username ?? ''}"${options.username ? '' : html` autofocus`}>
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required${options.username ? html` autofocus` : ''}>
  <button type="submit" class="button button-primary">Log in</button>
</form>
<p class="help">No account, or forgot the password? An admin adds accounts and sets passwords (on the Accounts page, or with order-batch users on the server).</p>`;
}
