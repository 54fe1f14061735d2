/**
 * PRODUCT.md section 8: `ledger set team-concurrency N` is the team's cap across every run, and a
 * run's own `--team-concurrency N` only lowers that run's share within it. The README, the team and
 * configuration pages and every `--help` that names either must say both halves, so a reader of any
 * one of them is not told that a run's flag can raise the cap or that it is the team's cap itself.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8').replace(/\s+/g, ' ');
}

function help(...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args, '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}

/** A run's flag is described as its share, one that can lower but never raise the team's cap. */
const RUN_SHARE = /--team-concurrency[^.]*\bshare\b[^.]*\blower\b/;
/** The ledger setting is described as the cap across every run. */
const TEAM_CAP = /ledger set team-concurrency[^.]*\bcaps?\b[^.]*\bevery run\b|team-concurrency N\|off: the POSTs in flight across every run/;

describe('the team concurrency wording', () => {
  it('the README names the ledger setting as the team cap and the run flag as a share that only lowers', () => {
    const readme = read('README.md');
    expect(readme).toMatch(TEAM_CAP);
    expect(readme).toMatch(RUN_SHARE);
  });

  it('the team page and the configuration key say the run flag only lowers its share within the cap', () => {
    expect(read('docs/team.md')).toMatch(/--team-concurrency N[^.]*this run may send at once, inside the team's cap/);
    const key = read('docs/configuration.md').split('|').find((cell, i, all) => all[i - 1]?.includes('`teamConcurrency`'));
    expect(key).toMatch(/this run's share, which can only lower it within the team's cap, never raise the cap/);
  });

  it('every --help that names --team-concurrency calls it the run share within the ledger cap', () => {
    for (const command of ['import', 'serve']) {
      expect(help(command)).toMatch(/--team-concurrency <n> this run's share: [^-]*within the team's cap the ledger holds \(ledger set team-concurrency\); it can lower the run's share, never raise the cap/);
    }
    expect(help('ledger', 'set')).toMatch(TEAM_CAP);
    expect(help('ledger', 'set')).toMatch(/a run's --team-concurrency can only lower its share/);
  });
});
