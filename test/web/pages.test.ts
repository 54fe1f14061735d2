/** Pure pieces of the pages: escaping, the chart, the progress arithmetic, the row filter, safe names, the script. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { renderBarChart } from '../../src/web/chart.js';
import { html } from '../../src/web/html.js';
import { estimateSecondsLeft, formatDuration, percentDone } from '../../src/web/progress.js';
import { renderVerdictPage } from '../../src/web/pages/verdict-page.js';
import { APP_SCRIPT } from '../../src/web/public/app-script.js';
import { matchesFilter, parseRowFilter, type VerdictRow } from '../../src/web/verdict.js';
import { attachmentHeader, openWorkDir, safeFileName } from '../../src/web/work-dir.js';
import { useTempFolder } from '../support/temp-dir.js';

describe('html templates', () => {
  it('escape every interpolated text and keep nested markup', () => {
    const name = '<img src=x onerror="alert(1)">';
    expect(html`<td>${name}</td>`.value).toBe('<td>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</td>');
    expect(html`<ul>${['a&b', 'c'].map((t) => html`<li>${t}</li>`)}</ul>`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul>');
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
  });
});

describe('the bar chart', () => {
  it('gives every bar its label and number as text, and describes itself', () => {
    const svg = renderBarChart(
      [
        { label: 'Shipped', value: 3, className: 'bar-shipped' },
        { label: 'Late <b>', value: 0, className: 'bar-x' },
      ],
      { title: 'Orders by status', id: 'c' },
    ).value;
    expect(svg).toContain('<title id="c-title">Orders by status</title>');
    expect(svg).toContain('<desc id="c-desc">Shipped: 3, Late &lt;b&gt;: 0</desc>');
    expect(svg).toContain('>Shipped</text>');
    expect(svg).toMatch(/class="bar-value">3</);
    expect(svg).toMatch(/width="0" height="20" class="bar bar-x"/);
  });
});

describe('progress arithmetic', () => {
  it('estimates the time left from the pace so far, rounded up', () => {
    expect(estimateSecondsLeft(10, 40, 5_000)).toBe(15);
    expect(estimateSecondsLeft(3, 10, 1_000)).toBe(3);
  });

  it('has no estimate before the first order is done, and none left when all are', () => {
    expect(estimateSecondsLeft(0, 40, 5_000)).toBeNull();
    expect(estimateSecondsLeft(40, 40, 5_000)).toBe(0);
  });

  it('words durations and percentages for people', () => {
    expect(formatDuration(0.2)).toBe('about 1 s');
    expect(formatDuration(150)).toBe('about 3 min');
    expect(formatDuration(3_900)).toBe('about 1 h 5 min');
    expect(percentDone(1, 3)).toBe(33);
    expect(percentDone(0, 0)).toBe(0);
  });
});

describe('the row filter', () => {
  const row = (n: number, status: string, warning = false): VerdictRow => ({
    n,
    cells: [`SO-${n}`, 'Hannah Brooks'],
    status,
    orderId: `SO-${n}`,
    issues: warning ? [{ row: n, column: 'postalOrZipCode', code: 'postal_code_padded', severity: 'warning', message: 'ZIP code padded' }] : [],
  });

  it('keeps rows by status, by warnings, and by text in cells or messages, ignoring case', () => {
    const rows = [row(2, 'valid', true), row(3, 'invalid'), row(4, 'valid')];
    const pick = (show: string, q = '') => rows.filter((r) => matchesFilter(r, parseRowFilter(show), q)).map((r) => r.n);
    expect(pick('all')).toEqual([2, 3, 4]);
    expect(pick('invalid')).toEqual([3]);
    expect(pick('valid')).toEqual([2, 4]);
    expect(pick('warnings')).toEqual([2]);
    expect(pick('all', 'so-4')).toEqual([4]);
    expect(pick('all', 'zip CODE')).toEqual([2]);
    expect(pick('anything else')).toEqual([2, 3, 4]);
  });
});

describe('stored names and downloads', () => {
  const dir = useTempFolder('workdir');

  it('keeps an uploaded name readable but never a path', () => {
    expect(safeFileName('orders (Nov).xlsx')).toBe('orders _Nov_.xlsx');
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Users\\ops\\orders.CSV')).toBe('orders.csv');
    expect(safeFileName('.hidden.csv')).toBe('hidden.csv');
    expect(safeFileName('.csv')).toBe('upload.csv');
  });

  it('names a download for every browser, whatever its characters', () => {
    expect(attachmentHeader('Bestellungen März.xlsx')).toBe(`attachment; filename="Bestellungen M_rz.xlsx"; filename*=UTF-8''Bestellungen%20M%C3%A4rz.xlsx`);
  });

  it('serves only files that really lie inside the work folder, symbolic links resolved', () => {
    const work = openWorkDir(join(dir, 'web'));
    const inside = join(work.dirOf('uploads', 'AAAAAAAAAAAAAAAA'), 'a.csv');
    writeFileSync(inside, 'x');
    const outside = join(dir, 'secret.txt');
    writeFileSync(outside, 'secret');
    const link = join(work.root, 'uploads', 'AAAAAAAAAAAAAAAA', 'link.txt');
    symlinkSync(outside, link);
    mkdirSync(join(dir, 'web-other'), { recursive: true });
    expect(work.contains(inside)).toBe(true);
    expect(work.contains(link)).toBe(false);
    expect(work.contains(join(work.root, '..', 'secret.txt'))).toBe(false);
    expect(work.contains(join(dir, 'web-other'))).toBe(false);
    expect(() => work.dirOf('uploads', '../../x')).toThrow();
  });
});

describe('the browser script', () => {
  it('is valid JavaScript with no template placeholders left in it', () => {
    expect(() => new Script(APP_SCRIPT)).not.toThrow();
    expect(APP_SCRIPT).not.toContain('`');
  });
});

describe('the verdict page of a long sheet', () => {
  const rows: VerdictRow[] = Array.from({ length: 620 }, (_, i) => ({ n: i + 2, cells: [`SO-${i}`], status: i % 2 ? 'invalid' : 'valid', orderId: `SO-${i}`, issues: [] }));
  const verdict = {
    id: 'AAAAAAAAAAAAAAAA', fileName: 'long.csv', file: '/x/long.csv', uploadedAt: '', checkedAsOf: '2026-11-20T12:00:00.000Z', timezone: 'UTC',
    headers: ['customerOrderId'], fileIssues: [], rows, rowsLeftOff: 0, orders: [], fixRows: 0,
    counts: { rows: 620, orders: 620, valid: 310, invalid: 310, rowsWithWarnings: 0 },
  };
  const ctx = { csrf: 't', isSandbox: true, apiLabel: 'the embedded sandbox', visitor: { name: 'me', role: 'admin' as const, isLocal: true } };
  const submit = { alreadySubmitted: new Map<string, string | null>() };

  it('pages it on the server, filter and search kept in the page links', () => {
    const page = renderVerdictPage(ctx, verdict, { show: 'all', q: '', page: 2, submit }).value;
    expect(page).toContain('data-paged="true"');
    expect(page).toContain('Showing 120 rows of 620 (page 2 of 2).');
    expect(page).toContain('href="/uploads/AAAAAAAAAAAAAAAA?show=all&amp;q=&amp;page=1">Previous page</a>');
    const filtered = renderVerdictPage(ctx, verdict, { show: 'invalid', q: '', page: 1, submit }).value;
    expect(filtered).toContain('Showing 310 rows of 310.');
    expect(filtered).not.toContain('<th scope="row">2</th>');
  });

  it('renders a short one whole, hiding what the filter leaves out so the script can bring it back', () => {
    const short = { ...verdict, rows: rows.slice(0, 4), counts: { ...verdict.counts, rows: 4 } };
    const page = renderVerdictPage(ctx, short, { show: 'invalid', q: '', page: 1, submit }).value;
    expect(page).toContain('data-paged="false"');
    expect(page).toContain('Showing 2 rows of 4.');
    expect(page).toMatch(/<tr data-status="valid"[^>]* hidden>/);
    expect(page).not.toMatch(/<tr data-status="invalid"[^>]* hidden>/);
  });
});
