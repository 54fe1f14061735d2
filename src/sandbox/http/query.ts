/** Strict reading of query parameters: every out-of-range, malformed, repeated-scalar or unknown parameter is a 400. */
import { badParameter, HttpProblem } from './problems.js';

export type RawQuery = Record<string, string | string[] | undefined>;

export function rejectUnknownParameters(query: RawQuery, allowed: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (!allowed.includes(name)) {
      throw new HttpProblem(400, `Unknown query parameter '${name}'. Allowed: ${allowed.join(', ') || 'none'}.`, [
        { field: name, message: 'is not a parameter of this endpoint' },
      ]);
    }
  }
}

/** A parameter that may appear once. */
export function readOne(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw badParameter(name, 'must be given once');
  return value;
}

export function readInt(query: RawQuery, name: string, min: number, max: number): number | undefined {
  const text = readOne(query, name);
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw badParameter(name, `must be a whole number from ${min} to ${max}`);
  const n = Number(text);
  if (n < min || n > max) throw badParameter(name, `must be a whole number from ${min} to ${max}`);
  return n;
}

/** A repeatable parameter (`?a=x&a=y`; `a=x,y` is read the same), each value from `allowed`. */
export function readList(query: RawQuery, name: string, allowed: readonly string[]): string[] | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim());
  for (const v of values) {
    if (!allowed.includes(v)) throw badParameter(name, `'${v}' is not one of ${allowed.join(', ')}`);
  }
  return values;
}

export interface Paging {
  pageNumber: number;
  itemsPerPage: number;
}

export const DEFAULT_ITEMS_PER_PAGE = 100;

/** pageNumber >= 1, itemsPerPage 1..100; null when neither is given (no pagination). */
export function readPaging(query: RawQuery, maxItems: number, minPage: number): Paging | null {
  const pageNumber = readInt(query, 'pageNumber', minPage, 1_000_000_000 - 1);
  const itemsPerPage = readInt(query, 'itemsPerPage', 1, maxItems);
  if (pageNumber === undefined && itemsPerPage === undefined) return null;
  return { pageNumber: pageNumber ?? minPage, itemsPerPage: itemsPerPage ?? DEFAULT_ITEMS_PER_PAGE };
}

export function pageOf<T>(items: readonly T[], paging: Paging): { data: T[]; pagination: { page: number; totalPages: number } } {
  const start = (paging.pageNumber - 1) * paging.itemsPerPage;
  return {
    data: items.slice(start, start + paging.itemsPerPage),
    pagination: { page: paging.pageNumber, totalPages: Math.max(1, Math.ceil(items.length / paging.itemsPerPage)) },
  };
}
