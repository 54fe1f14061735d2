/** The page of an upload whose check has not finished: its place in the line, refreshed until the verdict is there. */
import { html, type SafeHtml } from '../html.js';
import { layout, type PageContext } from './layout.js';

/** Seconds between two looks at a waiting upload. */
export const WAITING_REFRESH_SECONDS = 2;

export function renderWaitingPage(ctx: PageContext, options: { fileName: string; ahead: number | null }): SafeHtml {
  const where =
    options.ahead === null
      ? html`It is being checked now.`
      : options.ahead === 0
        ? html`It is next in line.`
        : html`It waits its turn: ${options.ahead} ${options.ahead === 1 ? 'upload is' : 'uploads are'} being checked or waiting ahead of it.`;
  const body = html`<h1>Checking ${options.fileName}</h1>
<div class="notice" role="status" aria-live="polite"><p>${where} This page shows the result as soon as it is ready.</p></div>
<p><a href="/">Check another sheet</a> meanwhile; this one goes on.</p>`;
  return layout({
    title: `Checking ${options.fileName}`,
    section: 'none',
    ctx,
    body,
    head: html`<meta http-equiv="refresh" content="${WAITING_REFRESH_SECONDS}">`,
  });
}
