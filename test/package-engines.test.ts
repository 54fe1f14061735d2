/**
 * `npm ci` on the oldest Node the project supports must install without an EBADENGINE warning: the
 * lockfile records each package's `engines`, so every one of them must accept that version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }>;
};

/** Packages npm installs on this platform: optional builds for another OS or CPU are never checked by npm ci here. */
function installsHere(entry: { optional?: boolean; os?: string[]; cpu?: string[] }): boolean {
  if (!entry.optional) return true;
  const fits = (list: string[] | undefined, value: string) => list === undefined || list.some((v) => v === value || (v.startsWith('!') ? v.slice(1) !== value : false));
  return fits(entry.os, process.platform) && fits(entry.cpu, process.arch);
}

describe('the dependencies install cleanly on every supported Node', () => {
  const oldest = semver.minVersion(manifest.engines.node)!.version;

  it(`accepts Node ${oldest}, the oldest package.json promises, in every package of the lockfile`, () => {
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === '' || range === undefined || !installsHere(entry)) return [];
      return semver.satisfies(oldest, range) ? [] : [`${path.replace(/^.*node_modules\//, '')}@${entry.version} requires node ${range}`];
    });
    expect(refusing).toEqual([]);
  });
});
