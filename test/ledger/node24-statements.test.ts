/**
 * On Node 24, a better-sqlite3 statement left to the garbage collector can abort the process (see
 * src/sqlite/open-database.ts). openDatabase keeps every statement prepared through it; db.pragma() makes
 * one it cannot see, so no source file may call it (PRAGMAs go through exec() or readPragma()).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('statements Node 24 could abort on', () => {
  it('no source file calls db.pragma()', () => {
    const offenders = sourceFiles('src').flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\.pragma\(/.test(line) && !/^\s*(\*|\/\/)/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
