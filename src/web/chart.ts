/**
 * A horizontal bar chart as inline SVG: no script, no library, readable without colour (each bar
 * carries its label and its number as text), described for screen readers, with the same numbers
 * in a table beside it.
 */
import { html, type SafeHtml } from './html.js';

export interface Bar {
  label: string;
  value: number;
  /** A CSS class for the bar's fill (styled in app.css). */
  className: string;
}

const LABEL_WIDTH = 150;
const BAR_AREA = 380;
const ROW_HEIGHT = 30;
const BAR_HEIGHT = 20;
const VALUE_GAP = 8;

export function renderBarChart(bars: readonly Bar[], options: { title: string; id: string }): SafeHtml {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const width = LABEL_WIDTH + BAR_AREA + 70;
  const height = bars.length * ROW_HEIGHT + 10;
  const description = bars.map((b) => `${b.label}: ${b.value}`).join(', ');
  const rows = bars.map((bar, i) => {
    const y = 5 + i * ROW_HEIGHT;
    const length = bar.value === 0 ? 0 : Math.max(2, Math.round((bar.value / max) * BAR_AREA));
    return html`<g class="bar-row">
  <text x="${LABEL_WIDTH - 10}" y="${y + BAR_HEIGHT / 2}" text-anchor="end" dominant-baseline="middle" class="bar-label">${bar.label}</text>
  <rect x="${LABEL_WIDTH}" y="${y}" width="${length}" height="${BAR_HEIGHT}" class="bar ${bar.className}"></rect>
  <text x="${LABEL_WIDTH + length + VALUE_GAP}" y="${y + BAR_HEIGHT / 2}" dominant-baseline="middle" class="bar-value">${bar.value}</text>
</g>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${options.id}-title ${options.id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${options.id}-title">${options.title}</title>
<desc id="${options.id}-desc">${description}</desc>
<line x1="${LABEL_WIDTH}" y1="0" x2="${LABEL_WIDTH}" y2="${height}" class="axis"></line>
${rows}
</svg>`;
}
