/**
 * Dates from sheet cells: ISO dates and date-times (with or without an offset), `YYYY-MM-DD HH:mm`,
 * US `M/D/YYYY [h:mm [AM|PM]]`, Excel serial numbers (1900 system) and xlsx date cells. Values
 * without an offset are wall-clock times in the sheet's time zone (PRODUCT.md section 6); a
 * date alone is the start of that day.
 */
import { DateTime, IANAZone, type Zone } from 'luxon';
import type { CellValue } from '../sheet/types.js';
import { detach, quote } from './text.js';
import type { DateOrder, NamedDateFormat } from './types.js';

const DAY_MS = 86_400_000;
/** Serial 61 is 1900-03-01: from there on, serial n is n days after 1899-12-30. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
/** Below serial 60 Excel counts from 1899-12-31; serial 60 is its fictitious 1900-02-29. */
const EXCEL_EARLY_EPOCH_MS = Date.UTC(1899, 11, 31);
const EXCEL_MAX_SERIAL = 2_958_465; // 9999-12-31
/** Distinct date strings remembered; a sheet of unique timestamps must not grow this forever. */
const CACHE_LIMIT = 50_000;

const UTC_NAMES = new Set(['utc', 'etc/utc', 'gmt', 'etc/gmt', 'universal', 'etc/universal', 'zulu', 'etc/zulu']);

const ISO = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
/** `11/24/2026` (month first) or `24.11.2026` / `24/11/2026` (day first), by the date order; time optional. */
const NUMERIC_DATE = /^(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([AaPp])\.?[Mm]\.?)?)?$/;
const SERIAL = /^\d{1,7}(?:\.\d+)?$/;
/** The named forms (types.ts NAMED_DATE_FORMATS), strictly: `Nov-18-26`, `Nov-18-2026`. */
const NAMED_FORMS: Record<NamedDateFormat, RegExp> = {
  'MMM-DD-YY': /^([A-Za-z]{3})-(\d{1,2})-(\d{2})$/,
  'MMM-DD-YYYY': /^([A-Za-z]{3})-(\d{1,2})-(\d{4})$/,
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A wall-clock time that the zone's clocks skip (spring forward: 02:30 does not exist) or show twice
 * (fall back: 01:30 happens once in summer time, then again an hour later), and the instant taken.
 */
export interface ClockChange {
  kind: 'skipped' | 'repeated';
  /** The wall-clock time as written, as UTC milliseconds. */
  wall: number;
  /** The instant taken: a skipped time is read with the offset before the change (02:30 becomes 03:30 after it). */
  taken: number;
  /** A repeated time: the other instant it names. */
  other?: number;
}

export function isValidTimezone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/**
 * Reads date cells for one sheet and one time zone. Remembers parses by text (many orders share
 * a date) and zone offsets by day (offsets change on a handful of days a year).
 */
export class DateReader {
  private readonly byText = new Map<string, number>();
  private readonly offsetByDay = new Map<number, number>();
  /** Zone offsets by quarter hour (zones change offset on quarter hours), for formatting instants. */
  private readonly offsetByQuarter = new Map<number, number>();
  private readonly zone: Zone;
  private readonly isUtc: boolean;
  /**
   * Set by the last `read` when the value was a wall-clock time the zone skips or repeats (null
   * otherwise). Read it right after `read`: the next read replaces it.
   */
  lastClockChange: ClockChange | null = null;

  /** `dateOrder`: how `05/11/2026` is read, month first (the default) or day first; `namedFormat`: a named form read too. */
  constructor(readonly timezone: string, readonly dateOrder: DateOrder = 'mdy', readonly namedFormat?: NamedDateFormat) {
    this.zone = IANAZone.create(timezone);
    this.isUtc = UTC_NAMES.has(timezone.toLowerCase());
  }

  /** Epoch milliseconds for a non-blank cell, or NaN when it is not a date. */
  read(raw: Exclude<CellValue, null>, text: string): number {
    this.lastClockChange = null;
    if (typeof raw === 'number') return this.fromWallClock(excelSerialToWallClock(raw));
    if (raw instanceof Date) return this.fromWallClock(raw.getTime());
    if (typeof raw !== 'string') return Number.NaN;
    // Most sheets write `2026-11-20 14:30`: read that shape by hand, without a cache lookup.
    const wall = parseCommonIso(text);
    if (wall >= 0) return this.fromWallClock(wall);
    if (wall === INVALID) return Number.NaN;
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    if (this.byText.size >= CACHE_LIMIT) this.byText.clear();
    const ms = this.parseText(text);
    // A time on a clock change is not remembered: each read of it must report the change again.
    if (this.lastClockChange === null) this.byText.set(detach(text), ms);
    return ms;
  }

  /** The instant of a wall-clock time written as if it were UTC milliseconds, in this zone. */
  fromWallClock(wallMs: number): number {
    if (Number.isNaN(wallMs) || this.isUtc) return wallMs;
    const day = Math.floor(wallMs / DAY_MS);
    let offset = this.offsetByDay.get(day);
    if (offset === undefined) {
      offset = this.uniformOffset(day);
      this.offsetByDay.set(day, offset);
    }
    if (!Number.isNaN(offset)) return wallMs - offset * 60_000;
    // A day with a DST change: let luxon settle gaps and repeated hours, and say when it had to.
    const w = new Date(wallMs);
    const taken = DateTime.fromObject(
      { year: w.getUTCFullYear(), month: w.getUTCMonth() + 1, day: w.getUTCDate(), hour: w.getUTCHours(), minute: w.getUTCMinutes(), second: w.getUTCSeconds(), millisecond: w.getUTCMilliseconds() },
      { zone: this.zone },
    ).toMillis();
    this.lastClockChange = this.clockChangeAt(wallMs, day, taken);
    return taken;
  }

  /**
   * Whether a wall-clock time of a day with a clock change is skipped or repeated: it is read with the
   * offset in force before the change and with the one after; each reading that the zone confirms is
   * an instant the time names. None: skipped; two: repeated.
   */
  private clockChangeAt(wallMs: number, day: number, taken: number): ClockChange | null {
    // Midnight is a date without a time (or the start of the day, written out): the start of that day
    // is meant, whenever it begins (00:00 skipped: 01:00), and nothing needs saying.
    if (wallMs % DAY_MS === 0) return null;
    const names: number[] = [];
    for (const offset of [this.zone.offset((day - 1) * DAY_MS), this.zone.offset((day + 2) * DAY_MS)]) {
      const instant = wallMs - offset * 60_000;
      if (this.zone.offset(instant) === offset && !names.includes(instant)) names.push(instant);
    }
    if (names.length === 0) return { kind: 'skipped', wall: wallMs, taken };
    if (names.length === 1) return null;
    const other = names.find((n) => n !== taken);
    return { kind: 'repeated', wall: wallMs, taken, ...(other === undefined ? {} : { other }) };
  }

  /**
   * Why a text that is not a date under this date order would be one under the other (`24.11.2026` or
   * `24/11/2026` read month first, `11/24/2026` read day first), naming the setting; null otherwise.
   */
  explainDateOrder(text: string): string | null {
    const m = NUMERIC_DATE.exec(text);
    if (m === null) return null;
    const first = +m[1]!;
    const second = +m[3]!;
    if (this.dateOrder === 'mdy') {
      if (m[2] !== '/' || (first > 12 && second <= 12)) {
        const why = m[2] !== '/' ? `is written with ${m[2] === '.' ? 'points' : 'dashes'}, the day-first way` : `has ${first} first, which is no month`;
        return `${quote(text)} ${why}, but dates in this file are read month first (the default date order). If the file writes the day first, read it with --date-order dmy (or "dateOrder": "dmy" in its mapping profile).`;
      }
      return null;
    }
    if (second > 12 && first <= 12) {
      return `${quote(text)} has ${second} in the month's place (the second number), and there is no month ${second}, but dates in this file are read day first (date order dmy, from --date-order or the mapping profile). If the file writes the month first, read it with --date-order mdy.`;
    }
    return null;
  }

  /** `2026-11-01 01:30 (-08:00)`: an instant in the sheet's zone with its offset, to tell two readings of one wall-clock time apart. */
  formatWithOffset(ms: number): string {
    const offset = this.zone.offset(ms);
    const sign = offset < 0 ? '-' : '+';
    const abs = Math.abs(offset);
    return `${this.format(ms).replace(/ \(.*\)$/, '')} (${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)})`;
  }

  /**
   * `2026-11-20 14:30 (America/New_York)`: an instant as the user reads it in the sheet's zone.
   * Hand-formatted with remembered offsets: error messages of a big sheet call this a lot.
   */
  format(ms: number): string {
    let offset = 0;
    if (!this.isUtc) {
      const quarter = Math.floor(ms / 900_000);
      const known = this.offsetByQuarter.get(quarter);
      if (known === undefined) {
        if (this.offsetByQuarter.size >= CACHE_LIMIT) this.offsetByQuarter.clear();
        offset = this.zone.offset(ms);
        this.offsetByQuarter.set(quarter, offset);
      } else {
        offset = known;
      }
    }
    const w = new Date(ms + offset * 60_000);
    const seconds = w.getUTCSeconds() !== 0 || w.getUTCMilliseconds() !== 0 ? `:${pad(w.getUTCSeconds())}` : '';
    const year = String(w.getUTCFullYear()).padStart(4, '0');
    return `${year}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())} ${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}${seconds} (${this.timezone})`;
  }

  /** The zone's offset in minutes when it is the same all around this local day, else NaN. */
  private uniformOffset(day: number): number {
    // Every instant of a local day lies within a day either side of its UTC reading.
    const before = this.zone.offset((day - 1) * DAY_MS);
    const after = this.zone.offset((day + 2) * DAY_MS);
    return before === after ? before : Number.NaN;
  }

  private parseText(text: string): number {
    if (this.namedFormat !== undefined) {
      const named = NAMED_FORMS[this.namedFormat].exec(text);
      if (named) {
        const month = MONTHS.indexOf(named[1]!.toLowerCase()) + 1;
        if (month === 0) return Number.NaN;
        // A two-digit year is 20YY: an order date must lie within the last 30 days, and no requested
        // delivery is a century away, so no other century could pass the date rules anyway.
        const year = named[3]!.length === 2 ? 2000 + +named[3]! : +named[3]!;
        return this.fromWallClock(wallClockMs(year, month, +named[2]!, 0, 0, 0, 0));
      }
    }
    let m = ISO.exec(text);
    if (m) {
      const offset = m[8];
      if (offset !== undefined && m[4] === undefined) return Number.NaN;
      const wall = wallClockMs(+m[1]!, +m[2]!, +m[3]!, num(m[4]), num(m[5]), num(m[6]), fractionMs(m[7]));
      if (offset === undefined) return this.fromWallClock(wall);
      return wall - parseOffsetMinutes(offset) * 60_000;
    }
    m = NUMERIC_DATE.exec(text);
    if (m) {
      // Points are how day-first dates are written: read month first they would be wrong, not refused.
      if (this.dateOrder === 'mdy' && m[2] !== '/') return Number.NaN;
      const yearText = m[4]!;
      const year = yearText.length === 2 ? 2000 + +yearText : +yearText;
      let hour = num(m[5]);
      const meridiem = m[8];
      if (meridiem !== undefined) {
        if (hour < 1 || hour > 12) return Number.NaN;
        hour = (hour % 12) + (meridiem === 'p' || meridiem === 'P' ? 12 : 0);
      }
      const [month, day] = this.dateOrder === 'dmy' ? [+m[3]!, +m[1]!] : [+m[1]!, +m[3]!];
      return this.fromWallClock(wallClockMs(year, month, day, hour, num(m[6]), num(m[7]), 0));
    }
    if (SERIAL.test(text)) return this.fromWallClock(excelSerialToWallClock(Number(text)));
    return Number.NaN;
  }
}

/** parseCommonIso: the text has another shape (try the general parser). */
const OTHER_SHAPE = -1;
/** parseCommonIso: the right shape, but not a real date or time (Feb 30, 24:00). */
const INVALID = -2;

/**
 * `YYYY-MM-DD`, `YYYY-MM-DD HH:mm` or `YYYY-MM-DD HH:mm:ss` (space or T), no offset: the wall-clock
 * time as UTC milliseconds. Returns OTHER_SHAPE or INVALID (both negative) otherwise; years
 * before 1970 take the general parser.
 */
export function parseCommonIso(text: string): number {
  const length = text.length;
  if (length !== 10 && length !== 16 && length !== 19) return OTHER_SHAPE;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return OTHER_SHAPE;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  let hour = 0;
  let minute = 0;
  let second = 0;
  if (length > 10) {
    const t = text.charCodeAt(10);
    if ((t !== 32 && t !== 84) || text.charCodeAt(13) !== 58) return OTHER_SHAPE;
    hour = digits(text, 11, 2);
    minute = digits(text, 14, 2);
    if (length === 19) {
      if (text.charCodeAt(16) !== 58) return OTHER_SHAPE;
      second = digits(text, 17, 2);
    }
  }
  if (year < 1970 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return OTHER_SHAPE;
  const ms = wallClockMs(year, month, day, hour, minute, second, 0);
  return Number.isNaN(ms) ? INVALID : ms;
}

/** The number written by `count` ASCII digits at `start`, or -1. */
function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return value;
}

/** Wall-clock time of an Excel serial number (1900 system), as UTC milliseconds; NaN if none. */
export function excelSerialToWallClock(serial: number): number {
  if (!Number.isFinite(serial) || serial < 1 || serial >= EXCEL_MAX_SERIAL + 1) return Number.NaN;
  if (serial >= 60 && serial < 61) return Number.NaN; // 1900-02-29 never existed
  const base = serial >= 61 ? EXCEL_EPOCH_MS : EXCEL_EARLY_EPOCH_MS;
  return Math.round(base + serial * DAY_MS);
}

/** UTC milliseconds of these calendar fields, or NaN when a field is out of range (Feb 30, 24:00). */
export function wallClockMs(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return Number.NaN;
  if (day > daysInMonth(year, month)) return Number.NaN;
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function num(text: string | undefined): number {
  return text === undefined ? 0 : +text;
}

function fractionMs(text: string | undefined): number {
  return text === undefined ? 0 : Math.floor(+`0.${text}` * 1000 + 1e-6);
}

function parseOffsetMinutes(offset: string): number {
  if (offset === 'Z' || offset === 'z') return 0;
  const sign = offset[0] === '-' ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = +digits.slice(0, 2);
  const minutes = digits.length > 2 ? +digits.slice(2) : 0;
  return sign * (hours * 60 + minutes);
}
