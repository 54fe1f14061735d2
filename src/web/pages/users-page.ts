/** Accounts, for admins: who may do what, and the forms that change it (each change is in the audit trail). */
import { describeRole, ROLES, type Role } from '../../accounts/roles.js';
import { PASSWORD_MIN } from '../../accounts/passwords.js';
import type { UserRecord } from '../../ledger/index.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, formatTime, layout, type PageContext } from './layout.js';
import { renderTokensSection, type TokensSection } from './tokens-section.js';

function roleOptions(selected: Role): SafeHtml[] {
  return ROLES.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`);
}

export function renderUsersPage(ctx: PageContext, users: readonly UserRecord[], options: { error?: string; notice?: string; tokens?: TokensSection } = {}): SafeHtml {
  const self = ctx.visitor?.name;
  const rows = users.map((user) => {
    const isSelf = user.name === self;
    const action = `/users/${encodeURIComponent(user.name)}`;
    return html`<tr>
<th scope="row">${user.name}${isSelf ? html` <span class="help">(you)</span>` : ''}</th>
<td>${isSelf ? user.role : html`<form method="post" action="${action}" class="inline-form">${csrfField(ctx)}<input type="hidden" name="change" value="role">
  <label class="visually-hidden" for="role-${user.name}">Role of ${user.name}</label>
  <select id="role-${user.name}" name="role">${roleOptions(user.role)}</select> <button type="submit" class="button">Set role</button></form>`}</td>
<td><form method="post" action="${action}" class="inline-form">${csrfField(ctx)}<input type="hidden" name="change" value="email">
  <label class="visually-hidden" for="email-${user.name}">E-mail address of ${user.name}</label>
  <input type="email" id="email-${user.name}" name="email" value="${user.email ?? ''}" autocapitalize="none" spellcheck="false" placeholder="none"> <button type="submit" class="button">Set e-mail</button></form></td>
<td>${user.isDisabled ? 'disabled' : 'active'}</td>
<td>${formatTime(user.createdAt)}</td>
<td class="user-actions">
  ${isSelf ? '' : html`<form method="post" action="${action}" class="inline-form">${csrfField(ctx)}<input type="hidden" name="change" value="${user.isDisabled ? 'enable' : 'disable'}"><button type="submit" class="button">${user.isDisabled ? 'Enable' : 'Disable'}</button></form>`}
  <form method="post" action="${action}" class="inline-form">${csrfField(ctx)}<input type="hidden" name="change" value="password">
    ${isSelf ? html`<label class="visually-hidden" for="current-password">Your current password</label>
    <input type="password" id="current-password" name="current" autocomplete="current-password" placeholder="current password" required> ` : ''}<label class="visually-hidden" for="password-${user.name}">New password for ${user.name}</label>
    <input type="password" id="password-${user.name}" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" placeholder="new password" required> <button type="submit" class="button">Set password</button></form>
  ${isSelf ? '' : html`<form method="post" action="${action}" class="inline-form">${csrfField(ctx)}<input type="hidden" name="change" value="remove"><button type="submit" class="button button-danger">Remove</button></form>`}
</td>
</tr>`;
  });
  const body = html`<h1>Accounts</h1>
<p class="lead">Viewers ${describeRole('viewer')}; operators ${describeRole('operator')}; admins ${describeRole('admin')}. Disabling an account or setting its password ends its sessions at once.</p>
${options.error ? html`<div class="notice notice-bad" role="alert"><p>${options.error}</p></div>` : ''}
${options.notice ? html`<div class="notice notice-ok" role="status"><p>${options.notice}</p></div>` : ''}
<div class="table-wrap" role="region" aria-labelledby="users-caption" tabindex="0"><table class="users-table">
<caption id="users-caption">${users.length} account${users.length === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Role</th><th scope="col">E-mail (company login)</th><th scope="col">State</th><th scope="col">Since</th><th scope="col">Changes</th></tr></thead>
<tbody>${rows}</tbody></table></div>
<h2>Add an account</h2>
<form method="post" action="/users" class="add-user">${csrfField(ctx)}
  <label for="new-name">Account name</label> <input type="text" id="new-name" name="name" autocapitalize="none" spellcheck="false" required>
  <label for="new-role">Role</label> <select id="new-role" name="role">${roleOptions('viewer')}</select>
  <label for="new-email">E-mail address (optional: their company login opens this account)</label> <input type="email" id="new-email" name="email" autocapitalize="none" spellcheck="false">
  <label for="new-password">Password (at least ${PASSWORD_MIN} characters)</label> <input type="password" id="new-password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required>
  <button type="submit" class="button button-primary">Add the account</button>
</form>
${options.tokens ? renderTokensSection(ctx, users, options.tokens) : ''}`;
  return layout({ title: 'Accounts', section: 'users', ctx, body });
}
