/**
 * Where the web app keeps uploads, jobs and reconciliations, and the one rule for serving files:
 * URLs carry ids, never paths, and a file is served only when it really lies inside the work folder.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve, sep } from 'node:path';

export type Area = 'uploads' | 'jobs' | 'reconcile' | 'template';

/**
 * Uploads and results hold customers' names, addresses and phones: the folders are this user's
 * alone (0700) and so is each file (0600), whatever the process umask would allow.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const ID_PATTERN = /^[A-Za-z0-9_-]{16}$/;

export function newId(): string {
  return randomBytes(12).toString('base64url');
}

export function isId(text: string): boolean {
  return ID_PATTERN.test(text);
}

export interface WorkDir {
  readonly root: string;
  /** The folder of one upload, job or reconciliation (created on demand). */
  dirOf(area: Area, id: string): string;
  /** True when `path` (after resolving symbolic links) lies inside the work folder. */
  contains(path: string): boolean;
  readJson<T>(area: Area, id: string, name: string): T | undefined;
  writeJson(area: Area, id: string, name: string, value: unknown): void;
  /**
   * The text with every path inside the work folder replaced by the file's own name. The shared
   * command functions name the file they read, which here is the server's copy of an upload
   * (`<root>/uploads/<id>/orders.csv`); a person knows it by the name they uploaded, and that copy
   * is stored under that very name (made safe), so its last part is what they expect to read.
   */
  nameFilesIn(text: string): string;
}

export function openWorkDir(path: string): WorkDir {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  const root = realpathSync(resolve(path));
  const escapedRoot = root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The root, then folder names ending in a separator: what is left is the file's name.
  const pathInside = new RegExp(`${escapedRoot}(?:[\\\\/][^\\\\/\\s]+)*[\\\\/]`, 'g');
  // The folder itself, not a sibling whose name begins with it (web-old).
  const rootAlone = new RegExp(`${escapedRoot}(?=$|[\\s:,;)'"]|[.](?!\\w))`, 'g');
  const dirOf = (area: Area, id: string) => {
    if (area !== 'template' && !isId(id)) throw new Error(`not an id: ${id}`);
    const dir = join(root, area, id);
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return dir;
  };
  return {
    root,
    dirOf,
    contains(file) {
      let real: string;
      try {
        real = realpathSync(resolve(file));
      } catch {
        return false;
      }
      return real.startsWith(root + sep);
    },
    readJson<T>(area: Area, id: string, name: string): T | undefined {
      if (!isId(id)) return undefined;
      const file = join(root, area, id, name);
      if (!existsSync(file)) return undefined;
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as T;
      } catch {
        return undefined;
      }
    },
    writeJson(area, id, name, value) {
      const file = join(dirOf(area, id), name);
      // Write then rename: a reader (or a crash) never sees half a file.
      writeFileSync(`${file}.tmp`, JSON.stringify(value), { mode: PRIVATE_FILE_MODE });
      renameSync(`${file}.tmp`, file);
    },
    nameFilesIn(text) {
      if (!text.includes(root)) return text;
      return text.replace(pathInside, '').replace(rootAlone, "the web app's work folder");
    },
  };
}

/**
 * A file name safe to store and to show: the base name only, letters, digits, space, dot, dash
 * and underscore, at most 100 characters, its extension kept (the reader goes by it).
 */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/'));
  // `.csv` alone is all extension (extname sees a dot file without one).
  const rawExt = extname(base) || (base.startsWith('.') ? base : '');
  const ext = rawExt.toLowerCase().replace(/[^.a-z0-9]/g, '').slice(0, 10);
  const stem = base
    .slice(0, base.length - rawExt.length)
    .replace(/[^A-Za-z0-9 ._-]/g, '_')
    .replace(/^[.\s]+/, '')
    .slice(0, 90)
    .trim();
  return `${stem || 'upload'}${ext}`;
}

/** `Content-Disposition` for a download: an ASCII fallback and the exact name (RFC 6266 / 5987). */
export function attachmentHeader(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export const CONTENT_TYPES: Record<string, string> = {
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.csv': 'text/csv; charset=utf-8',
};
