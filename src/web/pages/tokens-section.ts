/** The accounts page's API tokens (admins): who each acts for, until when, last used; make one, revoke one. */
import { isExpired } from '../../accounts/tokens.js';
import type { ApiTokenRecord, UserRecord } from '../../ledger/index.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, formatTime, type PageContext } from './layout.js';

export interface TokensSection {
  tokens: readonly ApiTokenRecord[];
  /** A token just made: shown this once. */
  created?: { label: string; token: string };
  now: Date;
}

export function renderTokensSection(ctx: PageContext, users: readonly UserRecord[], section: TokensSection): SafeHtml {
  const rows = section.tokens.map(
    (t) => html`<tr>
<th scope="row">${t.label}</th><td>${t.userName}</td>
<td>${t.expiresAt ? (isExpired(t, section.now) ? 'expired' : formatTime(t.expiresAt)) : 'never'}</td>
<td>${t.lastUsedAt ? formatTime(t.lastUsedAt) : 'never'}</td>
<td><form method="post" action="/users/tokens/${encodeURIComponent(t.label)}/revoke" class="inline-form">${csrfField(ctx)}<button type="submit" class="button button-danger">Revoke</button></form></td>
</tr>`,
  );
  return html`<h2 id="tokens">API tokens</h2>
<p>Other systems use the HTTP API (/api/v1) with a token, acting with its account's role. A token is shown once, when it is made; only its hash is kept.</p>
${section.created ? html`<div class="notice notice-ok" role="status"><p>The token ${section.created.label}, shown this once: copy it where the other system keeps its secrets.</p><p><code class="token">${section.created.token}</code></p></div>` : ''}
${section.tokens.length > 0
  ? html`<div class="table-wrap" role="region" aria-labelledby="tokens-caption" tabindex="0"><table class="users-table">
<caption id="tokens-caption">${section.tokens.length} token${section.tokens.length === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Label</th><th scope="col">Account</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Changes</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
  : html`<p>No tokens yet.</p>`}
<form method="post" action="/users/tokens" class="add-user">${csrfField(ctx)}
  <label for="token-user">Account</label> <select id="token-user" name="user">${users.filter((u) => !u.isDisabled).map((u) => html`<option value="${u.name}">${u.name} (${u.role})</option>`)}</select>
  <label for="token-label">Label</label> <input type="text" id="token-label" name="label" placeholder="erp-import" spellcheck="false" required>
  <label for="token-expires">Expires after (e.g. 90d; empty: never)</label> <input type="text" id="token-expires" name="expires" placeholder="90d" spellcheck="false">
  <button type="submit" class="button button-primary">Make a token</button>
</form>`;
}
