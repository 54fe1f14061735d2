/**
 * Keeps a workbook that unpacks to far more than its size (a damaged file, or a "zip bomb": 1 MB
 * that inflates to 1 GB) from being read. exceljs keeps the shared strings whole in memory and
 * parks worksheets in temp files, so such a file used to cost a gigabyte of memory or disk before
 * failing as "damaged".
 *
 * Two checks:
 * - before reading, the zip's central directory (its listing at the end of the file) gives each
 *   part's packed and unpacked size: a workbook over maxUnpackedBytes, or a part that unpacks more
 *   than maxRatio times its packed size, is refused;
 * - while reading, the bytes actually inflated are counted, since the listing can lie (or be
 *   missing): past fileSize x maxRatio (plus ratioFloorBytes), or past maxUnpackedBytes, the read stops.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { InputError } from '../errors.js';

export interface XlsxLimits {
  /** All parts of a workbook, unpacked. 2 GiB holds Excel's 1,048,576 rows of the template's columns (100,000 such rows unpack to about 115 MB). */
  maxUnpackedBytes: number;
  /** Unpacked size over packed size. Workbooks compress about 5 to 20 times; deflate's ceiling is about 1,030. */
  maxRatio: number;
  /** Parts smaller than this are never judged by their ratio (a tiny, very regular part can compress well). */
  ratioFloorBytes: number;
}

export const XLSX_LIMITS: XlsxLimits = { maxUnpackedBytes: 2 * 1024 ** 3, maxRatio: 100, ratioFloorBytes: 4 * 1024 ** 2 };

export interface ZipPart {
  name: string;
  packedBytes: number;
  unpackedBytes: number;
  /** Where its local header starts (-1 when the listing does not say: zip64 offsets are not read). */
  offset: number;
  /** Compression method: 0 stored, 8 deflated. */
  method: number;
}

const REFUSE_HOW = 'Open it in Excel and re-save it as .xlsx, or save the orders as CSV, and try again';

function formatSize(bytes: number): string {
  const oneDecimal = (n: number) => n.toFixed(1).replace(/\.0$/, '');
  if (bytes >= 1024 ** 3) return `${oneDecimal(bytes / 1024 ** 3)} GB`;
  if (bytes >= 1024 ** 2) return `${oneDecimal(bytes / 1024 ** 2)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** Why the listed parts are refused, or null. A bomb is named as such before it is called too large. */
export function judgeZipParts(file: string, parts: readonly ZipPart[], limits: XlsxLimits = XLSX_LIMITS): InputError | null {
  for (const part of parts) {
    if (part.unpackedBytes < limits.ratioFloorBytes) continue;
    const ratio = part.unpackedBytes / Math.max(1, part.packedBytes);
    if (ratio > limits.maxRatio) {
      return new InputError(
        file,
        'unreadable_file',
        `${file} cannot be read safely: ${part.name} inside it unpacks from ${formatSize(part.packedBytes)} to ${formatSize(part.unpackedBytes)} (${Math.round(ratio)} times; workbooks compress about 5 to 20 times), as a damaged workbook or a "zip bomb" does. ${REFUSE_HOW}`,
      );
    }
  }
  const total = parts.reduce((sum, p) => sum + p.unpackedBytes, 0);
  if (total > limits.maxUnpackedBytes) {
    return new InputError(
      file,
      'unreadable_file',
      `${file} is too large to read: its parts unpack to ${formatSize(total)}, more than the ${formatSize(limits.maxUnpackedBytes)} this tool reads from one workbook. Split the orders into smaller workbooks, or save them as CSV, and try again`,
    );
  }
  return null;
}

/** The most bytes a workbook of this size may inflate to while it is read. */
export function inflateBudget(fileBytes: number, limits: XlsxLimits = XLSX_LIMITS): number {
  return Math.min(limits.maxUnpackedBytes, fileBytes * limits.maxRatio + limits.ratioFloorBytes);
}

export function createInflatedTooMuchError(file: string, budget: number, fileBytes: number, part: string): InputError {
  return new InputError(
    file,
    'unreadable_file',
    `${file} cannot be read safely: its parts unpack to more than ${formatSize(budget)} (${part} was being read), far more than a ${formatSize(fileBytes)} workbook holds, as a damaged workbook or a "zip bomb" does. ${REFUSE_HOW}`,
  );
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL_ENTRY = 0x02014b50;
const SATURATED = 0xffffffff;
/** A workbook's listing is a few KB; a bigger one is not judged here (the count while reading still holds). */
const MAX_DIRECTORY_BYTES = 16 * 1024 ** 2;

/**
 * The file's size, and the parts its zip central directory lists with their sizes (zip64 included),
 * or null parts when the listing cannot be found or read: then the reader decides (a damaged zip),
 * and the count while inflating guards.
 */
export async function readZipParts(file: string): Promise<{ parts: ZipPart[] | null; fileBytes: number }> {
  const handle = await open(file, 'r');
  try {
    const fileBytes = (await handle.stat()).size;
    return { parts: await readDirectory(handle, fileBytes), fileBytes };
  } finally {
    await handle.close();
  }
}

async function readDirectory(handle: FileHandle, fileBytes: number): Promise<ZipPart[] | null> {
  const read = async (position: number, length: number): Promise<Buffer | null> => {
    if (position < 0 || length < 0 || position + length > fileBytes) return null;
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, position);
    return bytesRead === length ? buf : null;
  };
  const tailLength = Math.min(fileBytes, 22 + 0xffff);
  const tail = await read(fileBytes - tailLength, tailLength);
  if (!tail) return null;
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at === -1) return null;
  let count = tail.readUInt16LE(at + 10);
  let size = tail.readUInt32LE(at + 12);
  let offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || size === SATURATED || offset === SATURATED) {
    const locator = at >= 20 ? tail.subarray(at - 20, at) : await read(fileBytes - tailLength + at - 20, 20);
    if (!locator || locator.readUInt32LE(0) !== ZIP64_LOCATOR) return null;
    const record = await read(Number(locator.readBigUInt64LE(8)), 56);
    if (!record || record.readUInt32LE(0) !== ZIP64_EOCD) return null;
    count = Number(record.readBigUInt64LE(32));
    size = Number(record.readBigUInt64LE(40));
    offset = Number(record.readBigUInt64LE(48));
  }
  if (size > MAX_DIRECTORY_BYTES) return null;
  const directory = await read(offset, size);
  if (!directory) return null;
  const parts: ZipPart[] = [];
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > directory.length || directory.readUInt32LE(p) !== CENTRAL_ENTRY) return null;
    const method = directory.readUInt16LE(p + 10);
    const localOffset = directory.readUInt32LE(p + 42);
    let packedBytes = directory.readUInt32LE(p + 20);
    let unpackedBytes = directory.readUInt32LE(p + 24);
    const nameLength = directory.readUInt16LE(p + 28);
    const extraLength = directory.readUInt16LE(p + 30);
    const commentLength = directory.readUInt16LE(p + 32);
    const end = p + 46 + nameLength + extraLength + commentLength;
    if (end > directory.length) return null;
    const name = directory.toString('utf8', p + 46, p + 46 + nameLength);
    if (unpackedBytes === SATURATED || packedBytes === SATURATED) {
      const sizes = readZip64Sizes(directory.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength), unpackedBytes === SATURATED, packedBytes === SATURATED);
      if (!sizes) return null;
      unpackedBytes = sizes.unpacked ?? unpackedBytes;
      packedBytes = sizes.packed ?? packedBytes;
    }
    parts.push({ name, packedBytes, unpackedBytes, offset: localOffset === SATURATED ? -1 : localOffset, method });
    p = end;
  }
  return parts;
}

/** The zip64 extra field (id 1): the 8-byte sizes that stand in for saturated 4-byte ones, in this order. */
function readZip64Sizes(extra: Buffer, hasUnpacked: boolean, hasPacked: boolean): { unpacked?: number; packed?: number } | null {
  let p = 0;
  while (p + 4 <= extra.length) {
    const id = extra.readUInt16LE(p);
    const length = extra.readUInt16LE(p + 2);
    if (id === 1) {
      let q = p + 4;
      const out: { unpacked?: number; packed?: number } = {};
      if (hasUnpacked) {
        if (q + 8 > p + 4 + length) return null;
        out.unpacked = Number(extra.readBigUInt64LE(q));
        q += 8;
      }
      if (hasPacked) {
        if (q + 8 > p + 4 + length) return null;
        out.packed = Number(extra.readBigUInt64LE(q));
      }
      return out;
    }
    p += 4 + length;
  }
  return null;
}

interface ZipEntryStream {
  path: string;
  write(chunk: Buffer, ...rest: unknown[]): boolean;
  destroy(): void;
}

interface PushingParser {
  push(chunk: unknown, encoding?: BufferEncoding): boolean;
}

/** A part with a ceiling of its own (the shared strings), named as the zip names it, in lower case. */
export interface PartBudget {
  part: string;
  budget: number;
  onOver(): void;
}

/**
 * Counts the bytes unzipper inflates into each entry it hands exceljs (it pushes entries, then pipes
 * the inflater into each). Past `budget()` in all, or past its own budget for the part `own` names, the
 * entry is destroyed, which stops its inflater, and `onOver` (or `own.onOver`) is told.
 */
export function countInflatedBytes(parser: object, budget: () => number, onOver: (part: string) => void, own?: PartBudget): void {
  const pushing = parser as PushingParser;
  if (typeof pushing.push !== 'function') return;
  let total = 0;
  let isOver = false;
  const push = pushing.push.bind(parser);
  pushing.push = (chunk, encoding) => {
    const entry = chunk as ZipEntryStream | null;
    if (entry && typeof entry === 'object' && typeof entry.path === 'string' && typeof entry.write === 'function') {
      const write = entry.write.bind(entry);
      const partBudget = own !== undefined && entry.path.toLowerCase() === own.part ? own.budget : Infinity;
      let partTotal = 0;
      entry.write = (data: Buffer, ...rest: unknown[]) => {
        if (isOver) return false;
        total += data.length;
        partTotal += data.length;
        if (partTotal > partBudget) {
          isOver = true;
          entry.destroy();
          own!.onOver();
          return false;
        }
        if (total > budget()) {
          isOver = true;
          entry.destroy();
          onOver(entry.path);
          return false;
        }
        return write(data, ...rest);
      };
    }
    return push(chunk, encoding);
  };
}
