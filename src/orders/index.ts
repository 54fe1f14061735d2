/** Checking orders: cells, rows, orders and whole sheets, and the API payload of each valid order. */
export { checkSheet, type CheckSheetOptions, type MappedColumns } from './check-sheet.js';
export { CompactRowStore } from './row-store.js';
export { DateReader, excelSerialToWallClock, isValidTimezone } from './dates.js';
export { parseMoneyText, parseIntegerText, MAX_MONEY_CENTS } from './numbers.js';
export { cleanText } from './text.js';
export type { CheckContext, CheckedOrder, CheckedSheet, RowStore, ValidationStatus } from './types.js';
