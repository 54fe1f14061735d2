/**
 * A row of cells as one string, for the row store (row-store.ts): cells joined by the unit separator, cells
 * that are not text tagged with their kind.
 */
import type { CellValue } from '../sheet/types.js';

/** ASCII "unit separator": made for this, and practically never inside a spreadsheet cell. */
const SEPARATOR = '\u001f';
/** Tags for cells that are not text; a text cell starting with one of these is not encoded. */
const NUMBER_TAG = '\u0001';
const BOOLEAN_TAG = '\u0002';
const DATE_TAG = '\u0003';
const LAST_TAG_CODE = 3;

/** One string for a row, or null when a text cell holds the separator or starts with a tag. */
export function encodeRow(cells: readonly CellValue[]): string | null {
  if (cells.length === 0) return null;
  let isAllText = true;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (typeof cell === 'string') {
      if (cell.length !== 0 && (cell.charCodeAt(0) <= LAST_TAG_CODE || cell.includes(SEPARATOR))) return null;
    } else if (cell !== null && cell !== undefined) {
      isAllText = false;
    }
  }
  if (isAllText) return cells.join(SEPARATOR);
  // Joined from an array, not added up: a row of thousands of cells would otherwise be a rope of thousands of pieces.
  const encoded = new Array<string>(cells.length);
  for (let i = 0; i < cells.length; i++) encoded[i] = encodeCell(cells[i] ?? null);
  return encoded.join(SEPARATOR);
}

function encodeCell(cell: CellValue): string {
  if (cell === null) return '';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number') return NUMBER_TAG + String(cell);
  if (typeof cell === 'boolean') return BOOLEAN_TAG + (cell ? '1' : '0');
  return DATE_TAG + String(cell.getTime());
}

/**
 * Whether a row's encoding turns into its comma-joined line (see lineOfEncoded): every cell empty, a number, or
 * text holding neither a comma nor the number tag.
 */
export function encodesAsLine(cells: readonly CellValue[]): boolean {
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (typeof cell === 'number' || cell === null || cell === undefined) continue;
    if (typeof cell !== 'string' || cell.includes(',') || cell.includes(NUMBER_TAG)) return false;
  }
  return true;
}

/**
 * The cells of a row encoded from cells that encodesAsLine accepted, joined by commas, each number as its
 * String() (what its tagged encoding holds): the text the result CSV writes for them, without decoding a cell.
 */
export function lineOfEncoded(text: string): string {
  const joined = text.replaceAll(SEPARATOR, ',');
  return joined.includes(NUMBER_TAG) ? joined.replaceAll(NUMBER_TAG, '') : joined;
}

export function decodeRow(text: string): CellValue[] {
  const cells: CellValue[] = text.split(SEPARATOR);
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] as string;
    if (cell.length === 0 || cell.charCodeAt(0) > LAST_TAG_CODE) continue;
    const body = cell.slice(1);
    const tag = cell[0];
    cells[i] = tag === NUMBER_TAG ? Number(body) : tag === BOOLEAN_TAG ? body === '1' : new Date(Number(body));
  }
  return cells;
}
