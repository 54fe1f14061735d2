/**
 * The README and docs/ are what a user reads first: every command, flag, environment variable and
 * config key they show must exist, every link must lead somewhere, and the README must stay short
 * enough to be read at a glance (the depth lives in docs/, said once).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ISSUE_CODES, CELL_ISSUE_CODES, FILE_ISSUE_CODES } from '../src/issues/index.js';
import { COLUMNS } from '../src/sheet/columns.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const README_PATH = join(ROOT, 'README.md');
const README = readFileSync(README_PATH, 'utf8');
const DOC_PATHS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => join(ROOT, 'docs', f));
const PAGES = [README_PATH, ...DOC_PATHS].map((path) => ({ path, name: path.slice(ROOT.length + 1), text: readFileSync(path, 'utf8') }));

/** The README's sections, in the order a newcomer needs them. */
const SECTIONS = [
  'Set-up',
  'A first real run',
  'Commands',
  'The order sheet',
  'Issue codes',
  'Results and exit codes',
  'Configuration',
  'Running as a team',
  'The web app for a team',
  'Marketplace exports and mapping profiles',
  'Troubleshooting',
  'Performance',
];

/** A page split into its fenced code blocks and the prose around them. */
function splitFences(text: string): { code: string[]; prose: string } {
  const code: string[] = [];
  const prose = text.replace(/^ *```[^\n]*\n([\s\S]*?)^ *```$/gm, (_, body: string) => {
    code.push(body);
    return '';
  });
  return { code, prose };
}

/** Inline code spans of prose (a span may wrap onto the next line). */
function inlineSpans(prose: string): string[] {
  return [...prose.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\s+/g, ' '));
}

/** Every `order-batch <command> ...` a page shows, up to a shell operator or comment. */
function invocationsOf(text: string): string[] {
  const { code, prose } = splitFences(text);
  const pieces = [...code.flatMap((block) => block.split('\n')), ...inlineSpans(prose)];
  const found: string[] = [];
  for (const piece of pieces) {
    for (const m of piece.matchAll(/(?:^|[\s(])order-batch\s+([a-z][a-z-]*(?:\s.*)?)$/g)) {
      found.push(m[1]!.split(/\s(?:\||&&|&|;|#|\d?>+)(?:\s|$)/)[0]!.trim());
    }
  }
  return found;
}

const helpCache = new Map<string, string>();
/** `order-batch <path> --help` as the built CLI prints it. */
// One CLI process per documented command path (about 40): a second or more each on a loaded 2-core machine.
const HELP_TIMEOUT_MS = 240_000;

function helpOf(path: string[]): string {
  const key = path.join(' ');
  if (!helpCache.has(key)) helpCache.set(key, execFileSync(process.execPath, [CLI, ...path, '--help'], { encoding: 'utf8', cwd: ROOT }));
  return helpCache.get(key)!;
}

function subcommandsOf(help: string): string[] {
  // The Commands: list ends at its first blank line; the text after it (examples) is no command.
  const section = help.split(/^Commands:\n/m)[1]?.split(/\n\s*\n/)[0];
  if (section === undefined) return [];
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!).filter((name) => name !== 'help');
}

/** The command path an invocation names (`users add`, `sandbox clock`), checked against the CLI itself. */
function commandPathOf(invocation: string): string[] {
  const tokens = invocation.split(/\s+/);
  const path = [tokens[0]!];
  const next = tokens[1];
  if (next !== undefined && subcommandsOf(helpOf(path)).includes(next)) path.push(next);
  return path;
}

/** GitHub's anchor for a heading. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(text: string): Set<string> {
  return new Set([...splitFences(text).prose.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slugOf(m[1]!)));
}

/** Sentences of a page's prose (tables and code left out), whitespace made single. */
function sentencesOf(text: string): string[] {
  const prose = splitFences(text)
    .prose.split('\n')
    .filter((line) => !line.trimStart().startsWith('|'))
    .join(' ')
    .replace(/\s+/g, ' ');
  return prose.split(/(?<=[.:;!?])\s+/).filter((s) => s.length >= 60);
}

describe('README', () => {
  it('documents every issue code', () => {
    for (const code of [...FILE_ISSUE_CODES, ...CELL_ISSUE_CODES, ...API_ISSUE_CODES]) expect(README).toContain(`| \`${code}\` |`);
  });

  it('documents every sheet column, with its level', () => {
    for (const column of COLUMNS) expect(README).toContain(`| \`${column.field}\` | ${column.level} |`);
  });

  it('shows the two set-up commands', () => {
    expect(README).toContain('npm ci && npm start');
    expect(README).toContain('npm test');
  });

  it('stays under 30,000 bytes, the depth being in docs/', () => {
    expect(Buffer.byteLength(README)).toBeLessThan(30_000);
  });

  it('has its sections in the order a newcomer needs them', () => {
    const headings = [...splitFences(README).prose.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim());
    expect(headings.filter((h) => SECTIONS.includes(h))).toEqual(SECTIONS);
  });

  it('has a section per command, each with an example run', () => {
    const commands = subcommandsOf(helpOf([]));
    for (const command of ['validate', 'import', 'reconcile', 'template', 'serve', 'mapping', 'users', 'audit', 'sandbox']) {
      expect(commands).toContain(command);
      const section = README.split(new RegExp(`^### ${command}\\b.*$`, 'm'))[1]?.split(/^##/m)[0] ?? '';
      expect(section, `### ${command}`).toMatch(new RegExp(`order-batch ${command}\\b`));
    }
  });

  it('names only environment variables and config keys the options module reads', () => {
    const optionsSource = ['options.ts', 'config-file.ts'].map((file) => readFileSync(join(ROOT, 'src', file), 'utf8')).join('\n');
    const cliSource = readdirSync(join(ROOT, 'src', 'cli'))
      .map((f) => readFileSync(join(ROOT, 'src', 'cli', f), 'utf8'))
      .join('\n');
    for (const { name, text } of PAGES) {
      for (const [variable] of text.matchAll(/\b(?:FULFILLMENT|ORDER_BATCH)_[A-Z_]+\b/g)) {
        expect(`${optionsSource}\n${cliSource}`, `${variable} in ${name}`).toContain(variable);
      }
    }
    const configuration = README.split(/^## Configuration$/m)[1]!.split(/^## /m)[0]!;
    const keys = configuration
      .split('\n')
      .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
      .flatMap((line) => [...(line.split('|')[2] ?? '').matchAll(/`([a-zA-Z]+)`/g)].map((m) => m[1]!));
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(optionsSource, `config key ${key}`).toMatch(new RegExp(`^\\s+${key}: z\\.`, 'm'));
  });

  it('tells the product as it is, with no diary of the work', () => {
    for (const { name, text } of PAGES) {
      expect(text, name).not.toMatch(/\b(?:in session \d|sessions? \d+ and|we tried|we measured|previously|the build before|another sitting|formerly)\b/i);
    }
  });

  it('says each thing once: no sentence of the README is repeated in docs/', () => {
    const readme = new Set(sentencesOf(README));
    for (const { name, text, path } of PAGES) {
      if (path === README_PATH) continue;
      const repeated = sentencesOf(text).filter((s) => readme.has(s));
      expect(repeated, name).toEqual([]);
    }
  });
});

describe('README and docs/', () => {
  it('show only real commands, with flags their --help lists', () => {
    let checked = 0;
    for (const { name, text } of PAGES) {
      for (const invocation of invocationsOf(text)) {
        const path = commandPathOf(invocation);
        const help = helpOf(path);
        expect(help, `"order-batch ${invocation}" in ${name}: no such command`).toContain(`Usage: order-batch ${path.join(' ')} `);
        for (const [flag] of invocation.matchAll(/(?<=^|\s)--[a-z][a-z0-9-]*/g)) {
          expect(help, `${flag} of "order-batch ${invocation}" in ${name}`).toMatch(new RegExp(`\\s${flag}\\b`));
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  }, HELP_TIMEOUT_MS);

  it('mention in their prose only flags that some command has', () => {
    const allHelp = [[], ...subcommandsOf(helpOf([])).map((c) => [c])]
      .flatMap((path) => [path, ...(path.length > 0 ? subcommandsOf(helpOf(path)).map((s) => [...path, s]) : [])])
      .map((path) => helpOf(path))
      .join('\n');
    for (const { name, text } of PAGES) {
      for (const span of inlineSpans(splitFences(text).prose)) {
        if (/^(?:npm|npx|node|createuser|createdb)\b/.test(span)) continue;
        for (const [flag] of span.matchAll(/(?<=^|\s)--[a-z][a-z0-9-]*/g)) expect(allHelp, `${flag} in ${name}`).toMatch(new RegExp(`\\s${flag}\\b`));
      }
    }
  }, HELP_TIMEOUT_MS);

  it('link only to files and headings that exist', () => {
    for (const { name, text, path } of PAGES) {
      for (const [, target] of splitFences(text).prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^https?:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const linked = file === '' ? path : resolve(dirname(path), file);
        expect(existsSync(linked), `${target} in ${name}`).toBe(true);
        if (anchor !== undefined) expect(anchorsOf(readFileSync(linked, 'utf8')), `${target} in ${name}`).toContain(anchor);
      }
    }
  });
});
