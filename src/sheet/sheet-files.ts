/**
 * Which files are order sheets, before reading them: what a folder given as input yields, and
 * whether a text file's first line is an order sheet's header.
 *
 * A folder yields the sheet formats the reader takes, by extension (sniff.ts reads the bytes later),
 * without hidden files, Excel's lock files (~$name.xlsx) and the result files this tool writes beside
 * its inputs. A `.txt` file is Excel's "Text (Tab delimited)" or "Unicode Text" export as often as a
 * note left in the folder, so its first line decides: it is a sheet when it names an order column.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { extname, join } from 'node:path';
import Papa from 'papaparse';
import { FIELD_BY_HEADER, normalizeHeader } from './columns.js';
import { detectDelimiter } from './csv-records.js';
import { classify, type TextEncodingName } from './sniff.js';
import { createChunkDecoder } from './text-decode.js';

/** Extensions that name a sheet format the reader takes (text and workbook); `.txt` is judged by content. */
export const SHEET_EXTENSIONS: ReadonlySet<string> = new Set(['.csv', '.tsv', '.tab', '.xlsx', '.xlsm', '.xltx', '.xltm']);

/** Result files written beside their input: orders.result.xlsx, orders-2.import-result.csv, reconcile-20261120-120008.xlsx. */
const RESULT_FILE = /\.(?:import-)?result\.(?:xlsx|csv)$|\.reconciliation\.(?:xlsx|csv)$|^reconcile-\d{8}-\d{6}\.xlsx$/i;

/** Enough of a text file for its header line. */
const HEAD_BYTES = 16 * 1024;

/** Why a file of a folder is not taken, or null when it is an order sheet. */
export function whyNotOrderSheet(dir: string, name: string): string | null {
  if (name.startsWith('~$')) return "Excel's lock file";
  if (name.startsWith('.')) return 'hidden file';
  if (RESULT_FILE.test(name)) return 'result file of order-batch';
  const ext = extname(name).toLowerCase();
  if (SHEET_EXTENSIONS.has(ext)) return null;
  if (ext === '.txt') {
    const file = join(dir, name);
    let head: Buffer;
    try {
      head = readHead(file);
    } catch {
      // Taken: the reader then reports why it cannot be read, as for any sheet, rather than a nightly run passing it over unseen.
      return null;
    }
    return startsWithOrderHeader(file, head) ? null : 'text without order columns on its first line';
  }
  return 'not a .csv or .xlsx file';
}

/** Whether a header row names at least one order column (see columns.ts for the spellings accepted). */
export function namesOrderColumn(headers: readonly string[]): boolean {
  return headers.some((h) => FIELD_BY_HEADER.has(normalizeHeader(h)));
}

/** The first line of a text file (`head`: its first bytes) names an order column, in any encoding the reader knows; false for a binary file. */
function startsWithOrderHeader(file: string, head: Buffer): boolean {
  if (head.length === 0) return false;
  let text: string;
  try {
    const sniffed = classify(file, head, head, head.length);
    if (sniffed.kind !== 'csv') return false;
    const decoder = createChunkDecoder(sniffed.encoding);
    text = decoder.decode(head) + decoder.end();
  } catch {
    return false; // a binary file, a workbook or an archive named .txt: not a text sheet
  }
  // A lone CR ends a line as an LF does (csv-records.ts reads the file so).
  text = text.replace(/^\ufeff/, '').replace(/\r(?!\n)/g, '\n');
  const rows = Papa.parse<string[]>(text, { delimiter: detectDelimiter(text), preview: 5, skipEmptyLines: 'greedy' }).data;
  const header = rows.find((cells) => !/^sep=.?$/i.test((cells[0] ?? '').trim()) || cells.length > 2);
  return header !== undefined && namesOrderColumn(header);
}

/**
 * The delimiter of a CSV file as its parse detects it (detectDelimiter on the first line, which fits in
 * the head). Separators are ASCII: a lenient decode (bad bytes become U+FFFD, the BOM goes) will do.
 */
export function detectFileDelimiter(file: string, encoding: TextEncodingName): string {
  return detectDelimiter(new TextDecoder(encoding).decode(readHead(file)));
}

function readHead(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
