/**
 * The app's one stylesheet, served at /static/app.css. It lives in a module (not a .css file) so
 * the TypeScript build carries it into dist/ and an installed package needs no copy step.
 */
export const APP_CSS = String.raw`
:root {
  --text: #1b1f24; --muted: #4a5360; --bg: #ffffff; --panel: #f5f7fa; --line: #c9d1db;
  --accent: #0b5cad; --accent-dark: #084a8c; --focus: #ffbf47;
  --ok: #0f6b2f; --ok-bg: #e3f4e8; --bad: #a4161a; --bad-bg: #fde8e8; --warn: #7a4b00; --warn-bg: #fff4d6;
  --info: #174f86; --info-bg: #e6f0fa;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", sans-serif;
  font-size: 16px; line-height: 1.5; color: var(--text); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
a:hover { color: var(--accent-dark); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 5px var(--text); }
.skip-link { position: absolute; left: 8px; top: -60px; background: var(--text); color: #fff; padding: 8px 12px; z-index: 10; }
.skip-link:focus { top: 8px; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.site-header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; padding: 10px 24px; background: #16324f; color: #fff; }
.site-header a { color: #fff; }
.brand { margin: 0; font-weight: 700; font-size: 1.15rem; }
.brand a { text-decoration: none; }
.site-header nav ul { display: flex; gap: 4px; list-style: none; margin: 0; padding: 0; }
.site-header nav a { display: inline-block; padding: 6px 12px; border-radius: 4px; text-decoration: none; }
.site-header nav a:hover { background: rgba(255,255,255,0.15); }
.site-header nav a[aria-current="page"] { background: #fff; color: #16324f; font-weight: 600; }
.api-target { margin: 0 0 0 auto; font-size: 0.9rem; color: #dfe8f2; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 0.8rem; font-weight: 700; }
.badge-sandbox { background: var(--warn-bg); color: var(--warn); }
.visitor { margin: 0; font-size: 0.9rem; color: #dfe8f2; display: flex; gap: 8px; align-items: center; }
.button-link { background: none; border: 1px solid #dfe8f2; color: #fff; border-radius: 4px; padding: 2px 10px; cursor: pointer; font: inherit; }
.login { max-width: 26em; }
.login label { display: block; font-weight: 600; margin-top: 12px; }
.login input[type="text"], .login input[type="password"] { width: 100%; padding: 8px; font: inherit; border: 1px solid var(--line); border-radius: 4px; }
.login button { margin-top: 16px; }

main { max-width: 1280px; margin: 0 auto; padding: 16px 24px 40px; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; margin: 8px 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 0 0 8px; }
.lead { max-width: 60em; }
.meta, .help { color: var(--muted); font-size: 0.92rem; }
.help { margin: 4px 0; }
.site-footer { border-top: 1px solid var(--line); color: var(--muted); font-size: 0.85rem; padding: 8px 24px; }

.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; margin: 16px 0; }
.notice { border-left: 6px solid; border-radius: 4px; padding: 8px 14px; margin: 12px 0; }
.notice p { margin: 4px 0; }
.notice-bad { border-color: var(--bad); background: var(--bad-bg); }
.notice-warn { border-color: #c98a00; background: var(--warn-bg); }
.notice-info { border-color: var(--info); background: var(--info-bg); }

.button { display: inline-block; font: inherit; font-weight: 600; padding: 8px 18px; border-radius: 4px; border: 2px solid var(--accent); background: #fff; color: var(--accent); cursor: pointer; text-decoration: none; }
.button:hover { background: var(--info-bg); }
.button-primary { background: var(--accent); color: #fff; }
.button-primary:hover { background: var(--accent-dark); color: #fff; }
.button-danger { border-color: var(--bad); color: var(--bad); }
.button-danger:hover { background: var(--bad-bg); }
.inline-form { display: inline-flex; gap: 6px; align-items: center; margin: 2px 8px 2px 0; }
.inline-form .button { padding: 4px 10px; }
.filter-form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 0 0 12px; }
.filter-form .field-label { margin: 0; }
.add-user { display: grid; grid-template-columns: max-content minmax(12em, 24em); gap: 8px 12px; align-items: center; }
.add-user .button { grid-column: 2; justify-self: start; }
.cancel-form { margin-top: 12px; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
.button[disabled] { opacity: 0.55; cursor: not-allowed; }
.field-label { display: block; font-weight: 600; margin: 4px 0; }
input[type="text"], input[type="search"], select { font: inherit; padding: 6px 8px; border: 1px solid #6b7684; border-radius: 4px; min-width: 16em; }
.actions { display: flex; flex-wrap: wrap; gap: 16px 40px; align-items: flex-end; margin: 12px 0; }
.actions form { margin: 0; }

.upload-form { max-width: 720px; }
.drop-zone { border: 3px dashed #6b7684; border-radius: 8px; padding: 20px 24px; margin: 12px 0; background: var(--panel); }
.drop-zone.is-dragging { border-color: var(--accent); background: var(--info-bg); }
.drop-hint { margin: 0 0 8px; font-size: 1.1rem; }
.drop-zone input[type="file"] { font: inherit; margin: 4px 0; max-width: 100%; }
.chosen { font-weight: 600; margin: 6px 0 0; min-height: 1.5em; }
.more-options { margin: 8px 0 16px; }
.more-options summary { cursor: pointer; color: var(--accent); }
.error-text { color: var(--bad); font-weight: 600; }
.link-list { margin: 4px 0; padding-left: 20px; }
.link-list li { margin: 4px 0; }
.plain-list { list-style: none; margin: 0; padding: 0; }

.counts { display: flex; flex-wrap: wrap; gap: 12px; list-style: none; padding: 0; margin: 12px 0; }
.count { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; background: #fff; }
.count strong { font-size: 1.3rem; }
.count-ok { border-left: 6px solid var(--ok); }
.count-bad { border-left: 6px solid var(--bad); }
.count-warn { border-left: 6px solid #c98a00; }
.counts-inline .count { display: flex; gap: 10px; align-items: baseline; margin: 0; }
.counts-inline dt, .counts-inline dd { margin: 0; }
.counts-inline dd { font-size: 1.3rem; font-weight: 700; }

.status { display: inline-block; white-space: nowrap; font-weight: 600; padding: 0 6px; border-radius: 4px; }
.status-ok { color: var(--ok); background: var(--ok-bg); }
.status-bad { color: var(--bad); background: var(--bad-bg); }
.status-warn { color: var(--warn); background: var(--warn-bg); }
.status-info { color: var(--info); background: var(--info-bg); }

.filters { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: flex-end; margin: 8px 0; }
.radio-group { border: 1px solid var(--line); border-radius: 4px; padding: 4px 12px 8px; margin: 0; }
.radio-group legend { font-weight: 600; padding: 0 4px; }
.radio { margin-right: 14px; white-space: nowrap; }
.filter-count { margin: 4px 0; color: var(--muted); }
.table-wrap { overflow: auto; max-height: 70vh; border: 1px solid var(--line); border-radius: 4px; }
table { border-collapse: collapse; font-size: 0.9rem; }
caption { text-align: left; padding: 6px 8px; color: var(--muted); caption-side: top; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top; }
thead th { position: sticky; top: 0; background: #e8edf3; z-index: 1; white-space: nowrap; }
.rows-table tbody th { background: var(--panel); }
.rows-table td { white-space: nowrap; }
.rows-table td.problems { white-space: normal; min-width: 24em; max-width: 30em; }
.problems ul { margin: 0; padding: 0; list-style: none; }
.problems li { margin: 0 0 4px; padding-left: 1.2em; text-indent: -1.2em; }
.problem-error span { color: var(--bad); } .problem-warning { color: var(--warn); }
.orders-table th[scope="row"], .exceptions-table th[scope="row"], .history-table th[scope="row"] { white-space: nowrap; }
.messages { margin: 0; padding-left: 16px; }
tr.row-invalid th[scope="row"] { border-left: 5px solid var(--bad); }
tr.row-valid th[scope="row"] { border-left: 5px solid var(--ok); }
td.cell-error { background: var(--bad-bg); outline: 2px solid var(--bad); outline-offset: -2px; }
td.cell-warning { background: var(--warn-bg); outline: 2px dashed #c98a00; outline-offset: -2px; }
.cell-value { display: block; font-weight: 600; }
.cell-msg { display: block; font-size: 0.82rem; margin-top: 2px; white-space: pre-line; min-width: 16em; max-width: 24em; }
td.cell-error .cell-msg { color: var(--bad); }
td.cell-warning .cell-msg { color: var(--warn); }
.cell-edit { display: block; margin-top: 4px; font-size: 0.82rem; }
.cell-form { display: flex; gap: 4px; flex-wrap: wrap; margin-top: 4px; }
.cell-form input { min-width: 10em; }
.cell-status { display: block; font-size: 0.82rem; }
.edit-mark { display: block; font-size: 0.78rem; color: var(--info); margin-top: 2px; }
td.cell-edited { box-shadow: inset 4px 0 0 var(--info); }
.mapping-form .table-wrap { max-height: none; }
.mapping-table select { max-width: 18em; }
.value-map { border: 1px solid var(--line); border-radius: 4px; margin: 8px 0 0; padding: 4px 10px; }
.value-map legend { font-size: 0.82rem; }
.value-map ul { list-style: none; margin: 0; padding: 0; }
.field-error { display: block; font-size: 0.85rem; color: var(--bad); }
[aria-invalid="true"] { border-color: var(--bad); outline: 1px solid var(--bad); }
.samples { margin: 0; padding-left: 1.1em; font-size: 0.85rem; }
.guess-weak, .guess-ambiguous { font-size: 0.82rem; color: var(--warn); }
.blank { font-style: italic; font-weight: 400; color: var(--muted); }
.num { text-align: right; }
.pager { display: flex; gap: 16px; margin: 8px 0; }

.job progress { width: 100%; max-width: 640px; height: 22px; }
.job-message { font-size: 1.1rem; font-weight: 600; }
.progress-numbers { margin: 4px 0 12px; }
.outcome { font-size: 1.1rem; font-weight: 600; }

.rollup { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.chart { max-width: 100%; height: auto; font-family: inherit; }
.chart .bar-label, .chart .bar-value { font-size: 14px; fill: var(--text); }
.chart .axis { stroke: #6b7684; }
.bar { fill: #4f6d8f; }
.bar-waiting { fill: #8a96a3; } .bar-partially_shipped { fill: #c98a00; } .bar-shipped { fill: #2f6fb0; }
.bar-delivered { fill: #0f6b2f; } .bar-canceled { fill: #6b4c9a; } .bar-exception { fill: #a4161a; } .bar-not_found { fill: #444; }
.sandbox-clock select { min-width: 8em; }

@media (max-width: 800px) { main { padding: 12px; } .api-target { margin-left: 0; } }
@media (prefers-reduced-motion: reduce) { * { transition: none !important; } }
`;
