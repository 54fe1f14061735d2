/**
 * Money and whole numbers from sheet cells, by hand: exact cents from text without a float
 * detour, and no regex or allocation per cell (a million-row sheet has millions of these).
 */
import { dollarsToCents } from '../contract/money.js';
import type { CellValue } from '../sheet/types.js';

/** Largest amount accepted, in cents (a billion dollars): sums of cents times quantity stay exact. */
export const MAX_MONEY_CENTS = 100_000_000_000;

/** Why a money cell is not an amount. */
export type MoneyProblem = 'format' | 'decimals' | 'too_large';
/** Why a cell is not a whole number. */
export type IntegerProblem = 'format' | 'fraction' | 'too_large';

const MAX_WHOLE_DIGITS = 9; // of dollars, so MAX_MONEY_CENTS is checked exactly below

/**
 * Exact cents for `12.5`, `$1,234.50`, `-$3`, `$-3`, `+7`, `.99` and the accounting form `(12.00)`
 * (negative). Thousands commas must group by three; a comma as decimal mark (`1.234,50`) is
 * refused rather than guessed. Digits after the cents must be zeros (`12.500` is 1250 cents).
 */
export function parseMoneyText(text: string): number | MoneyProblem {
  let i = 0;
  let end = text.length;
  let negative = false;
  if (end >= 2 && text.charCodeAt(0) === 40 && text.charCodeAt(end - 1) === 41) {
    negative = true;
    i = 1;
    end -= 1;
  }
  i = skipSpaces(text, i, end);
  end = skipSpacesBack(text, i, end);
  let sawSign = false;
  let sawDollar = false;
  for (;;) {
    const c = text.charCodeAt(i);
    if ((c === 45 || c === 43) && !sawSign && i < end) {
      sawSign = true;
      if (c === 45) {
        if (negative) return 'format';
        negative = true;
      }
    } else if (c === 36 && !sawDollar && i < end) {
      sawDollar = true;
    } else {
      break;
    }
    i = skipSpaces(text, i + 1, end);
  }
  if (!scanWholePart(text, i, end)) return 'format';
  const whole = wholePart.value;
  const digits = wholePart.significantDigits;
  const sawWhole = wholePart.hasDigits;
  i = wholePart.next;
  let cents = 0;
  let fracDigits = 0;
  let extraNonZero = false;
  if (i < end && text.charCodeAt(i) === 46) {
    i++;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      if (fracDigits < 2) cents = cents * 10 + (c - 48);
      else if (c !== 48) extraNonZero = true;
      fracDigits++;
      i++;
    }
    if (fracDigits === 1) cents *= 10;
  }
  if (i !== end || (!sawWhole && fracDigits === 0)) return 'format';
  if (extraNonZero) return 'decimals';
  if (digits > MAX_WHOLE_DIGITS) return 'too_large';
  const total = whole * 100 + cents;
  if (total > MAX_MONEY_CENTS) return 'too_large';
  return negative && total !== 0 ? -total : total;
}

/** Cents for a number cell (xlsx), through the contract's exact conversion. */
export function moneyFromNumber(value: number): number | MoneyProblem {
  if (!Number.isFinite(value)) return 'format';
  const cents = dollarsToCents(value);
  if (cents === null) return Math.abs(value) * 100 > MAX_MONEY_CENTS ? 'too_large' : 'decimals';
  if (Math.abs(cents) > MAX_MONEY_CENTS) return 'too_large';
  return cents === 0 ? 0 : cents;
}

/** Cents for any non-blank cell. */
export function moneyFromCell(raw: Exclude<CellValue, null>, text: string): number | MoneyProblem {
  if (typeof raw === 'number') return moneyFromNumber(raw);
  if (typeof raw === 'string') return parseMoneyText(text);
  return 'format';
}

/** A whole number: `2`, `+2`, `-1`, `1,000`, and `2.0` / `2.00` (Excel exports); `2.5` is a fraction. */
export function parseIntegerText(text: string): number | IntegerProblem {
  let i = 0;
  const end = text.length;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 || first === 43) {
    negative = first === 45;
    i = 1;
  }
  if (!scanWholePart(text, i, end) || !wholePart.hasDigits) return 'format';
  const value = wholePart.value;
  i = wholePart.next;
  let fraction = false;
  if (i < end && text.charCodeAt(i) === 46) {
    i++;
    if (i === end) return 'format';
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) return 'format';
      if (c !== 48) fraction = true;
      i++;
    }
  }
  if (i !== end) return 'format';
  if (fraction) return 'fraction';
  if (!Number.isSafeInteger(value)) return 'too_large';
  return negative && value !== 0 ? -value : value;
}

/** A whole number for any non-blank cell. */
export function integerFromCell(raw: Exclude<CellValue, null>, text: string): number | IntegerProblem {
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return 'format';
    if (!Number.isInteger(raw)) return 'fraction';
    if (!Number.isSafeInteger(raw)) return 'too_large';
    return raw === 0 ? 0 : raw;
  }
  if (typeof raw === 'string') return parseIntegerText(text);
  return 'format';
}

/** What the last scanWholePart read; one object reused for every cell, so the hot path allocates nothing. */
const wholePart = { value: 0, significantDigits: 0, hasDigits: false, next: 0 };

/**
 * The whole part of a number from `i`: digits, with thousands commas that must group by three
 * (`1,234,567`; not `1,23` nor `1234,567`). False when the grouping is wrong; else fills wholePart.
 */
function scanWholePart(text: string, i: number, end: number): boolean {
  let value = 0;
  let significantDigits = 0;
  let groupDigits = 0;
  let grouped = false;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      if (value > 0) significantDigits++;
      groupDigits++;
    } else if (c === 44) {
      if (groupDigits === 0 || (grouped ? groupDigits !== 3 : groupDigits > 3)) return false;
      grouped = true;
      groupDigits = 0;
    } else {
      break;
    }
    i++;
  }
  if (grouped && groupDigits !== 3) return false;
  wholePart.value = value;
  wholePart.significantDigits = significantDigits;
  wholePart.hasDigits = groupDigits > 0;
  wholePart.next = i;
  return true;
}

function skipSpaces(text: string, i: number, end: number): number {
  while (i < end && text.charCodeAt(i) === 32) i++;
  return i;
}

function skipSpacesBack(text: string, start: number, end: number): number {
  while (end > start && text.charCodeAt(end - 1) === 32) end--;
  return end;
}
