/**
 * Progress through a workbook, in bytes of the file, for the same bar a CSV gets (check-file.ts): the file
 * read, then the worksheet parsed, each half of the way.
 */
import type { ChunkSource } from './xlsx-stream-fixes.js';

/** A worksheet as exceljs was handed it: its number, its raw source, and how many of its unpacked bytes were parsed. */
export interface Emitted {
  sheetNo: string;
  source: ChunkSource;
  parsedBytes: number;
}

/**
 * How far the read is, in bytes of the file: half for the file read, half for the worksheet parsed. A workbook
 * whose worksheet comes before its shared strings (as exceljs's own writer stores it) is read whole into a temp
 * file before its first row is parsed; parsing it is most of the time, and the bar must not sit at 100% meanwhile.
 */
export function progressBytes(bytes: number, fileBytes: number, reading: Emitted | null, unpacked: number | null | undefined): number {
  if (!reading || !unpacked) return reading ? bytes : Math.floor(bytes / 2);
  const parsed = Math.min(1, reading.parsedBytes / unpacked);
  return Math.floor((bytes + Math.max(bytes, fileBytes) * parsed) / 2);
}
