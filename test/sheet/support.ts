/** Fixtures written to a temp dir per test file, and helpers to read a sheet completely. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { expect } from 'vitest';
import { InputError } from '../../src/errors.js';
import { openSheet, type OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import type { OpenedSheet, RawRow } from '../../src/sheet/types.js';
import { useTempFolder } from '../support/temp-dir.js';

export function useTempDir(): (name: string, content?: string | Uint8Array) => string {
  const dir = useTempFolder('sheet');
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

export interface ZipPartSpec {
  name: string;
  data: Buffer;
  /** An unpacked size to write in the zip's headers instead of the true one (a lying listing). */
  claimUnpacked?: number;
}

/**
 * What a local header and its central directory entry both hold, in the same order from `at` (version
 * needed, flags, method, time, date, CRC-32, sizes, name length): deflated, no flags, no date.
 */
function writeEntryFields(header: Buffer, at: number, f: { crc: number; packed: number; unpacked: number; nameLength: number }): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(8, at + 4);
  header.writeUInt32LE(f.crc, at + 10);
  header.writeUInt32LE(f.packed, at + 14);
  header.writeUInt32LE(f.unpacked, at + 18);
  header.writeUInt16LE(f.nameLength, at + 22);
}

/** A zip written by hand: local headers, deflated data, the central directory and its end record. */
export function zipOf(parts: ZipPartSpec[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const packed = deflateRawSync(part.data, { level: 9 });
    const name = Buffer.from(part.name, 'utf8');
    const unpacked = part.claimUnpacked ?? part.data.length;
    const crc = crc32(part.data);
    const fields = { crc, packed: packed.length, unpacked, nameLength: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, fields);
    locals.push(local, name, packed);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4); // made by: version 2.0
    writeEntryFields(entry, 6, fields);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
