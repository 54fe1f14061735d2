/**
 * What a file really is, from its bytes rather than its name: a text sheet (CSV/TSV in some
 * encoding), an xlsx workbook, or something we refuse with a one-line reason and a fix.
 * Only the first and last 64 KiB are read, so sniffing a 2 GiB file costs nothing.
 */
import { open, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { InputError } from '../errors.js';

/** How text bytes are decoded. `utf-8` falls back to windows-1252 when the bytes are not UTF-8. */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be';

export type Sniffed =
  | { kind: 'csv'; encoding: TextEncodingName; sizeBytes: number }
  | { kind: 'xlsx'; sizeBytes: number };

const PROBE_BYTES = 64 * 1024;

const TEXT_EXTENSIONS = new Set(['.csv', '.tsv', '.txt', '.tab']);
const XLSX_EXTENSIONS = new Set(['.xlsx', '.xlsm', '.xltx', '.xltm']);
/** Extensions that promise a spreadsheet format we do not read (checked only after the bytes say what the file is). */
const OTHER_SHEET_EXTENSIONS = new Set(['.xls', '.ods', '.numbers', '.xlsb']);
/**
 * Extensions that are certainly not an order sheet, whatever the bytes: a note saved as notes.pdf
 * would otherwise be read as text. What each is, for the message.
 */
const NOT_SHEET_EXTENSIONS: ReadonlyMap<string, string> = new Map([
  ...['.pdf'].map((e) => [e, 'a PDF document'] as const),
  ...['.doc', '.docx', '.docm', '.dot', '.dotx', '.odt', '.rtf', '.pages'].map((e) => [e, 'a word-processor document'] as const),
  ...['.ppt', '.pptx', '.pps', '.ppsx', '.odp', '.key'].map((e) => [e, 'a presentation'] as const),
  ...['.zip', '.gz', '.tgz', '.7z', '.rar', '.tar', '.bz2', '.xz'].map((e) => [e, 'an archive'] as const),
  ...['.png', '.jpg', '.jpeg', '.gif', '.bmp', '.tif', '.tiff', '.webp', '.heic', '.svg', '.ico'].map((e) => [e, 'an image'] as const),
  ...['.mp3', '.mp4', '.mov', '.avi', '.wav', '.m4a'].map((e) => [e, 'a sound or video file'] as const),
  ...['.exe', '.dll', '.msi', '.dmg', '.apk'].map((e) => [e, 'a program'] as const),
  ...['.eml', '.msg'].map((e) => [e, 'an email message'] as const),
]);

const SAVE_AS = 'save it as .xlsx or .csv and try again';

export async function sniffFile(file: string): Promise<Sniffed> {
  const sizeBytes = await statRegularFile(file);
  const ext = extname(file).toLowerCase();
  if (sizeBytes === 0) {
    if (NOT_SHEET_EXTENSIONS.has(ext)) throw notSheetByName(file, ext);
    throw new InputError(file, 'empty_file', `${file} is empty: put the header row and at least one order in it`);
  }
  const { head, tail } = await readProbe(file, sizeBytes);
  const sniffed = classify(file, head, tail, sizeBytes);
  checkExtension(file, ext, sniffed.kind);
  return sniffed;
}

async function statRegularFile(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new InputError(file, 'unreadable_file', `${file} is a folder, not a file: give the path of the order sheet inside it`);
    if (!info.isFile()) throw new InputError(file, 'unreadable_file', `${file} is not a regular file: give the path of an .xlsx or .csv order sheet`);
    return info.size;
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw createFileSystemError(file, error);
  }
}

/** One line for the usual ways a path cannot be opened; the system error stays as `cause`. */
export function createFileSystemError(file: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reason =
    code === 'ENOENT' ? 'was not found: check the path and the file name' :
    code === 'EACCES' || code === 'EPERM' ? 'cannot be read (permission denied): check the file permissions' :
    code === 'EISDIR' ? 'is a folder, not a file: give the path of the order sheet inside it' :
    code === 'ENOTDIR' ? 'was not found: a part of the path is not a folder' :
    'cannot be read: check that the file exists and is not locked by another program';
  return new InputError(file, 'unreadable_file', `${file} ${reason}`, { cause: error });
}

async function readProbe(file: string, size: number): Promise<{ head: Buffer; tail: Buffer }> {
  let handle;
  try {
    handle = await open(file, 'r');
    const head = Buffer.alloc(Math.min(PROBE_BYTES, size));
    await handle.read(head, 0, head.length, 0);
    let tail = head;
    if (size > PROBE_BYTES) {
      tail = Buffer.alloc(Math.min(PROBE_BYTES, size));
      await handle.read(tail, 0, tail.length, size - tail.length);
    }
    return { head, tail };
  } catch (error) {
    throw createFileSystemError(file, error);
  } finally {
    await handle?.close();
  }
}

function startsWith(buf: Buffer, bytes: readonly number[], offset = 0): boolean {
  if (buf.length < offset + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[offset + i] !== bytes[i]) return false;
  return true;
}

const ZIP_LOCAL = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY = [0x50, 0x4b, 0x05, 0x06];
const ZIP_END_OF_CENTRAL_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function unsupported(file: string, what: string): InputError {
  return new InputError(file, 'unsupported_format', `${file} is ${what}, not an order sheet this tool reads: ${SAVE_AS}`);
}

/** Content decides; the extension is only compared afterwards (checkExtension). */
export function classify(file: string, head: Buffer, tail: Buffer, sizeBytes: number): Sniffed {
  if (startsWith(head, ZIP_LOCAL) || startsWith(head, ZIP_EMPTY)) return classifyZip(file, head, tail, sizeBytes);
  if (startsWith(head, OLE2)) {
    // Password-protected xlsx files are OLE2 containers holding an "EncryptedPackage" stream.
    if (head.includes(Buffer.from('EncryptedPackage', 'utf16le'))) {
      throw new InputError(file, 'unsupported_format', `${file} is password-protected: remove the password in Excel (File > Info > Protect Workbook), save it as .xlsx and try again`);
    }
    throw unsupported(file, 'a legacy Excel 97-2003 workbook (.xls) or another old Office file');
  }
  const magic = binaryMagic(head);
  if (magic) throw unsupported(file, magic);

  if (startsWith(head, [0xff, 0xfe, 0x00, 0x00]) || startsWith(head, [0x00, 0x00, 0xfe, 0xff])) {
    throw new InputError(file, 'unsupported_format', `${file} is UTF-32 text: save it as .xlsx, or as CSV in UTF-8, and try again`);
  }
  if (startsWith(head, [0xff, 0xfe])) return { kind: 'csv', encoding: 'utf-16le', sizeBytes };
  if (startsWith(head, [0xfe, 0xff])) return { kind: 'csv', encoding: 'utf-16be', sizeBytes };
  const utf16 = guessBomlessUtf16(head);
  if (utf16) return { kind: 'csv', encoding: utf16, sizeBytes };
  if (head.includes(0)) throw unsupported(file, 'a binary file (not text and not a workbook)');

  const text = head.toString('latin1', 0, Math.min(head.length, 4096)).replace(/^\uFEFF|^\u00ef\u00bb\u00bf/, '').trimStart().toLowerCase();
  if (text.startsWith('<?xml') && text.includes('urn:schemas-microsoft-com:office:spreadsheet')) {
    throw unsupported(file, 'an Excel 2003 XML spreadsheet');
  }
  if (/^(<!doctype html|<html|<table|<head|<body)/.test(text)) {
    throw new InputError(file, 'unsupported_format', `${file} is a web page (HTML), not a spreadsheet: open it in Excel and ${SAVE_AS}`);
  }
  if (text.startsWith('{\\rtf')) throw unsupported(file, 'a rich-text (RTF) document');
  return { kind: 'csv', encoding: 'utf-8', sizeBytes };
}

function classifyZip(file: string, head: Buffer, tail: Buffer, sizeBytes: number): Sniffed {
  // An OpenDocument file stores its uncompressed "mimetype" entry first, at a fixed place.
  const mimetype = head.toString('latin1', 30, 120);
  if (mimetype.startsWith('mimetypeapplication/vnd.oasis.opendocument.spreadsheet')) {
    throw unsupported(file, 'an OpenDocument spreadsheet (.ods)');
  }
  if (mimetype.startsWith('mimetypeapplication/vnd.oasis.opendocument')) throw unsupported(file, 'an OpenDocument document');
  // Entry names appear in the local headers (head) and in the central directory (tail).
  const names = head.toString('latin1') + tail.toString('latin1');
  const hasEnd = tail.includes(ZIP_END_OF_CENTRAL_DIRECTORY);
  if (names.includes('xl/workbook.bin')) throw unsupported(file, 'a binary Excel workbook (.xlsb)');
  if (names.includes('xl/workbook.xml') || names.includes('xl/worksheets/')) {
    if (!hasEnd) throw createDamagedWorkbookError(file);
    return { kind: 'xlsx', sizeBytes };
  }
  if (!hasEnd) {
    throw new InputError(file, 'unreadable_file', `${file} is a damaged or incomplete zip file: if it is a workbook, open it in Excel and re-save it as .xlsx`);
  }
  if (names.includes('word/document.xml')) throw unsupported(file, 'a Word document');
  if (names.includes('ppt/presentation.xml')) throw unsupported(file, 'a PowerPoint presentation');
  if (names.includes('Index/Document.iwa')) throw unsupported(file, 'an Apple Numbers spreadsheet');
  if (names.includes('[Content_Types].xml')) {
    // Large workbooks can push xl/workbook.xml out of both probes; the xlsx reader decides then.
    return { kind: 'xlsx', sizeBytes };
  }
  throw unsupported(file, 'a zip archive');
}

/** An error of the kind a program makes (reading a property of undefined), not one a damaged file causes (a bad zip or XML). */
export function isProgrammingError(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError;
}

/**
 * The workbook reader failed on something in a file that may well be valid: said as that, with what to do
 * today, never as a damaged file (which would send the user to repair a file that is fine).
 */
export function createReaderFaultError(file: string, cause: unknown): InputError {
  const detail = cause instanceof Error ? ` (${cause.name}: ${cause.message})` : '';
  return new InputError(
    file,
    'unreadable_file',
    `${file} could not be read: the workbook reader failed on something in it${detail}. The file itself may be fine: ` +
      'open it in Excel or LibreOffice and save it again as .xlsx, or save the orders as CSV, and try again; please report the file so that the reader can be fixed',
    { cause },
  );
}

export function createDamagedWorkbookError(file: string, cause?: unknown): InputError {
  return new InputError(file, 'unreadable_file', `${file} is a damaged or incomplete workbook: open it in Excel, re-save it as .xlsx and try again`, cause === undefined ? undefined : { cause });
}

function binaryMagic(head: Buffer): string | null {
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46])) return 'a PDF document';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47])) return 'a PNG image';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'a JPEG image';
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38])) return 'a GIF image';
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'a TIFF image';
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)) return 'a WebP image';
  if (startsWith(head, [0x66, 0x74, 0x79, 0x70], 4)) return 'an image or video file';
  if (startsWith(head, [0x1f, 0x8b])) return 'a gzip archive';
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return 'a 7-Zip archive';
  if (startsWith(head, [0x52, 0x61, 0x72, 0x21])) return 'a RAR archive';
  if (startsWith(head, [0x42, 0x5a, 0x68])) return 'a bzip2 archive';
  return null;
}

/** UTF-16 without a byte-order mark: ASCII text then has a zero in every other byte. */
function guessBomlessUtf16(head: Buffer): TextEncodingName | null {
  const n = Math.min(head.length, 1024) & ~1;
  if (n < 4) return null;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) evenZero++;
    if (head[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero > pairs * 0.4 && evenZero < pairs * 0.05) return 'utf-16le';
  if (evenZero > pairs * 0.4 && oddZero < pairs * 0.05) return 'utf-16be';
  return null;
}

function withExtension(file: string, ext: string): string {
  const base = basename(file);
  const current = extname(base);
  return (current ? base.slice(0, -current.length) : base) + ext;
}

/** Worded for the command line and the web page alike: no "give the path", no flags. */
function notSheetByName(file: string, ext: string): InputError {
  return new InputError(
    file,
    'unsupported_format',
    `${file} is not an order sheet: its name ends in ${ext} (${NOT_SHEET_EXTENSIONS.get(ext)}), and order sheets are .xlsx or .csv files. Save or export the orders as .xlsx or .csv and try again (if it really is a CSV file, rename it to ${withExtension(file, '.csv')})`,
  );
}

/** A file whose name promises another format is refused with what it really is and the name to give it. */
function checkExtension(file: string, ext: string, kind: Sniffed['kind']): void {
  const isWrongName = NOT_SHEET_EXTENSIONS.has(ext) || TEXT_EXTENSIONS.has(ext) || OTHER_SHEET_EXTENSIONS.has(ext);
  if (kind === 'xlsx' && isWrongName) {
    throw new InputError(file, 'unsupported_format', `${file} is really an Excel workbook (.xlsx) although its name ends in ${ext}: rename it to ${withExtension(file, '.xlsx')} and try again`);
  }
  if (NOT_SHEET_EXTENSIONS.has(ext)) throw notSheetByName(file, ext);
  if (kind === 'csv' && (XLSX_EXTENSIONS.has(ext) || OTHER_SHEET_EXTENSIONS.has(ext))) {
    throw new InputError(file, 'unsupported_format', `${file} is really a text (CSV) file although its name ends in ${ext}: rename it to ${withExtension(file, '.csv')} and try again`);
  }
}
