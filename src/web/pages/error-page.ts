/** Errors as pages a person can act on: what happened and where to go, never a stack trace. */
import { html, type SafeHtml } from '../html.js';
import { layout, type PageContext } from './layout.js';

export function renderErrorPage(ctx: PageContext, options: { title: string; message: string; back?: { href: string; label: string } }): SafeHtml {
  const back = options.back ?? { href: '/', label: 'Back to the start page' };
  const body = html`<h1>${options.title}</h1>
<div class="notice notice-bad" role="alert"><p>${options.message}</p></div>
<p><a href="${back.href}">${back.label}</a></p>`;
  return layout({ title: options.title, section: 'none', ctx, body });
}
