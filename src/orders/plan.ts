/**
 * Where each field sits in this sheet and the checker that reads it, worked out once per sheet
 * so the row loop does no lookups by name.
 */
import { COLUMNS, type ColumnDef, type Field } from '../sheet/columns.js';
import type { CheckContext } from './types.js';
import { FieldChecker, type CheckerDeps } from './cells.js';
import { DateReader } from './dates.js';
import { createEnumMatcher } from './enum-matcher.js';
import { checkUsPostalCode, type PostalCheck } from './postal.js';

export interface PlannedField {
  readonly field: Field;
  readonly def: ColumnDef;
  /** 0-based column index in the sheet, or -1 when the sheet has no such column. */
  readonly col: number;
  /** The header as written in the sheet, or the field name when the column is absent. */
  readonly header: string;
  readonly checker: FieldChecker;
  /** Index among the order-level fields (customerOrderId excluded); -1 for line fields. */
  readonly slot: number;
  readonly bit: number;
  readonly isAddressLine: boolean;
  /** The order's value is the sum of its rows' values (PlanOptions.summed), not one value repeated. */
  readonly isSummed: boolean;
  /** The order's value is its first row's; later rows may differ and are not compared (PlanOptions.firstOnly). */
  readonly isFirstOnly: boolean;
}

export interface SheetPlan {
  readonly byField: ReadonlyMap<Field, PlannedField>;
  readonly id: PlannedField;
  readonly postal: PlannedField;
  readonly country: PlannedField;
  /** Order-level fields present in the sheet, except customerOrderId and postalOrZipCode (read after the country). */
  readonly orderFields: readonly PlannedField[];
  /** Order-level fields present in the sheet that every order must fill in (the address lines aside, see addressLineBits). */
  readonly requiredOrderFields: readonly PlannedField[];
  /**
   * Bits of the address line fields. The address needs one non-blank line, in any of them (PRODUCT.md
   * section 2: addressLines = the non-blank address lines), so addressLine1 alone may be blank.
   */
  readonly addressLineBits: number;
  /** Bits of the optional orderShippingDetails fields other than carrierId. */
  readonly shippingDetailBits: number;
  readonly line: Readonly<Record<LineField, PlannedField>>;
  readonly slotCount: number;
  /** The order-level field of each slot. */
  readonly bySlot: readonly PlannedField[];
  /** Slots 0 to keptSlots - 1 hold what a closed order keeps. */
  readonly keptSlots: number;
  /** Required columns the sheet lacks: every order is invalid (the file-level issue says why). */
  readonly missingRequired: readonly Field[];
  readonly timezone: string;
  /** `isNumberCell`: the cell held a number, not text (see checkUsPostalCode). */
  checkUsPostal(text: string, isNumberCell: boolean): PostalCheck;
  /** An instant as the user reads it in the sheet's time zone, for messages. */
  formatInstant(ms: number): string;
}

export interface PlanOptions {
  numberFormat?: CheckerDeps['numberFormat'];
  /**
   * Order-level money fields whose rows add up to the order's value instead of repeating it (a mapping
   * profile's `sum`, e.g. Amazon's item-tax per line for the order's salesTax).
   */
  summed?: readonly Field[];
  /** Order-level fields whose later rows may differ: the first row's value is the order's (a profile's `first`). */
  firstOnly?: readonly Field[];
}

export type LineField = 'productId' | 'customerLineItemId' | 'name' | 'quantity' | 'unitPrice' | 'discount';

const SHIPPING_DETAIL_FIELDS: ReadonlySet<Field> = new Set(['shippingAccountNumber', 'shipLabelNameDisplay', 'shippingContactName', 'shippingContactPhoneNumber']);

/** Order values a finished order needs (date window, totals, ZIP against country), kept after the order is closed. */
const KEPT_FIELDS: readonly Field[] = ['orderDate', 'subTotal', 'salesTax', 'discountTotal', 'grandTotal', 'countryCode', 'postalOrZipCode'];

/** `sheet.numberFormat`: how numbers with a comma are read (see CheckerDeps); `sheet.summed`: order-level fields added up over the order's rows. */
export function planColumns(headers: readonly string[], columns: readonly (Field | null)[], ctx: CheckContext, sheet: PlanOptions = {}): SheetPlan {
  const deps: CheckerDeps = {
    dates: new DateReader(ctx.timezone, ctx.dateOrder, ctx.dateFormat),
    sourcesOfSale: createEnumMatcher(ctx.sourcesOfSale),
    ...(sheet.numberFormat !== undefined && { numberFormat: sheet.numberFormat }),
  };
  const byField = new Map<Field, PlannedField>();
  // Slots of the values a finished order still needs come first, so a closed draft keeps a prefix.
  const orderDefs = COLUMNS.filter((def) => def.level === 'order' && def.field !== 'customerOrderId');
  const slotOrder = [...KEPT_FIELDS, ...orderDefs.map((def) => def.field).filter((field) => !KEPT_FIELDS.includes(field))];
  for (const def of COLUMNS) {
    const col = columns.indexOf(def.field);
    const header = col >= 0 ? (headers[col] ?? def.field) : def.field;
    const slot = slotOrder.indexOf(def.field);
    const planned: PlannedField = {
      field: def.field,
      def,
      col,
      header,
      checker: new FieldChecker(def, header, deps),
      slot,
      bit: slot >= 0 ? 1 << slot : 0,
      isAddressLine: def.field === 'addressLine1' || def.field === 'addressLine2' || def.field === 'addressLine3',
      isSummed: def.level === 'order' && def.kind === 'money' && (sheet.summed?.includes(def.field) ?? false),
      isFirstOnly: def.level === 'order' && (sheet.firstOnly?.includes(def.field) ?? false),
    };
    byField.set(def.field, planned);
  }
  const all = [...byField.values()];
  const present = all.filter((p) => p.col >= 0);
  let lastPostal: { text: string; isNumberCell: boolean; result: PostalCheck } | null = null;
  const postal = byField.get('postalOrZipCode')!;
  return {
    byField,
    id: byField.get('customerOrderId')!,
    postal,
    country: byField.get('countryCode')!,
    orderFields: present.filter((p) => p.slot >= 0 && p.field !== 'postalOrZipCode'),
    shippingDetailBits: all.filter((p) => SHIPPING_DETAIL_FIELDS.has(p.field)).reduce((bits, p) => bits | p.bit, 0),
    requiredOrderFields: present.filter((p) => p.slot >= 0 && p.def.requiredValue && !p.isAddressLine),
    addressLineBits: all.filter((p) => p.isAddressLine).reduce((bits, p) => bits | p.bit, 0),
    line: {
      productId: byField.get('productId')!,
      customerLineItemId: byField.get('customerLineItemId')!,
      name: byField.get('name')!,
      quantity: byField.get('quantity')!,
      unitPrice: byField.get('unitPrice')!,
      discount: byField.get('discount')!,
    },
    slotCount: slotOrder.length,
    bySlot: slotOrder.map((field) => byField.get(field)!),
    keptSlots: KEPT_FIELDS.length,
    missingRequired: all.filter((p) => p.def.requiredColumn && p.col < 0).map((p) => p.field),
    timezone: ctx.timezone,
    formatInstant: (ms) => deps.dates.format(ms),
    checkUsPostal(text, isNumberCell) {
      if (lastPostal?.text !== text || lastPostal.isNumberCell !== isNumberCell) lastPostal = { text, isNumberCell, result: checkUsPostalCode(text, postal.header, isNumberCell) };
      return lastPostal.result;
    },
  };
}
