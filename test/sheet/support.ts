/** Fixtures written to a temp dir per test file, and helpers to read a sheet completely. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, expect } from 'vitest';
import { InputError } from '../../src/errors.js';
import { openSheet, type OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import type { OpenedSheet, RawRow } from '../../src/sheet/types.js';

export function useTempDir(): (name: string, content?: string | Uint8Array) => string {
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-sheet-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (name, content) => {
    const path = join(dir, name);
    if (content !== undefined) writeFileSync(path, content);
    return path;
  };
}

/** A workbook built by `build`, written to the temp dir of `fixture` (from useTempDir) as `name`. */
export async function writeWorkbook(fixture: (name: string) => string, name: string, build: (workbook: ExcelJS.Workbook) => void): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  build(workbook);
  const path = fixture(name);
  await workbook.xlsx.writeFile(path);
  return path;
}

export async function readAll(file: string, options?: OpenSheetOptions): Promise<{ sheet: OpenedSheet; rows: RawRow[]; batches: number[] }> {
  const sheet = await openSheet(file, options);
  const rows: RawRow[] = [];
  const batches: number[] = [];
  for await (const batch of sheet.rows) {
    batches.push(batch.length);
    rows.push(...batch);
  }
  return { sheet, rows, batches };
}

/** The InputError a read rejects with, whether on opening or while streaming rows. */
export async function readError(file: string, options?: OpenSheetOptions): Promise<InputError> {
  try {
    await readAll(file, options);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    const inputError = error as InputError;
    expect(inputError.message).toContain(file);
    expect(inputError.message).not.toContain('\n');
    return inputError;
  }
  throw new Error(`expected ${file} to be refused`);
}
