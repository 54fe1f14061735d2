/**
 * What the template says: the example orders and the instructions, derived from the column
 * definitions so the template cannot disagree with the checker.
 *
 * The example orders go on the workbook's Examples sheet, which is never read (see write-template.ts).
 */
import { CARRIER_IDS } from '../contract/enums.js';
import { LIMITS } from '../contract/limits.js';
import { COLUMNS, type ColumnDef, type Field } from '../sheet/columns.js';

export type ExampleRow = Partial<Record<Field, string>>;

/** Two orders: SO-10001 with two lines (order cells left blank on its second row), SO-10002 with computed totals. */
export function exampleRows(sourceOfSale: string): ExampleRow[] {
  return [
    {
      customerOrderId: 'SO-10001', marketplaceOrderId: '113-4567890-1234567', sourceOfSale,
      subTotal: '71.98', salesTax: '4.95', discountTotal: '5.00', grandTotal: '76.93',
      fullName: 'Maria Lopez', email: 'maria@example.com', addressLine1: '123 Main St', addressLine2: 'Apt 4B',
      city: 'Boston', provinceOrState: 'MA', postalOrZipCode: '02134', countryCode: 'US', phone: '(617) 555-0134',
      carrierId: 'CarrierXGround', productId: 'PRD-1001', customerLineItemId: '1', name: 'Ceramic mug, blue',
      quantity: '2', unitPrice: '29.99', discount: '2.50',
    },
    { customerOrderId: 'SO-10001', productId: 'PRD-1002', customerLineItemId: '2', name: 'Coaster set', quantity: '1', unitPrice: '12.00' },
    {
      customerOrderId: 'SO-10002', sourceOfSale, salesTax: '0.00',
      fullName: 'Sam Chen', addressLine1: '55 Harbor Rd', city: 'Portland', provinceOrState: 'ME', postalOrZipCode: '04101',
      countryCode: 'US', phone: '207-555-0188', carrierId: 'CarrierX2Day',
      productId: 'PRD-1001', customerLineItemId: '1', name: 'Ceramic mug, blue', quantity: '1', unitPrice: '29.99',
    },
  ];
}

export const GENERAL_RULES: readonly string[] = [
  'One row per line item (product) of an order.',
  'Rows with the same customerOrderId form one order, wherever they are in the sheet. Every row names its customerOrderId.',
  'Order-level columns may be repeated on every row of the order or left blank after its first row; two different values for one order are an error.',
  'Keep the headers in row 1 as they are. Columns the tool does not know are ignored, with a warning.',
  'subTotal, discountTotal and grandTotal may be left blank: they are then computed. Filled in, they must match to the cent: subTotal = sum of unitPrice x quantity; discountTotal = sum of discount x quantity; grandTotal = subTotal + salesTax.',
  `orderDate must be less than ${LIMITS.orderDateMaxAgeDays} days old and not in the future. Dates without an offset are read in the configured timezone (UTC unless set otherwise).`,
  'Columns formatted as text (IDs, ZIP codes, phones) keep leading zeros and long numbers; paste into them with Paste Special > Values so the format stays.',
  'The Examples sheet shows two orders, SO-10001 and SO-10002; it is never read, and their orderDate is blank so they can never be sent as they are. Enter your orders on the Orders sheet (to start from an example, copy its rows there, then change customerOrderId and enter the orderDate).',
  'Check a file without sending anything: order-batch validate <file>. Problems come back in a result file, cell by cell.',
];

const KIND_TEXT: Record<ColumnDef['kind'], string> = {
  text: 'text',
  money: 'amount (dollars and cents)',
  integer: 'whole number',
  date: 'date, or date and time',
  enum: 'one of a list',
};

export interface InstructionRow {
  column: Field;
  required: 'yes' | 'optional';
  level: 'order' | 'line';
  type: string;
  rules: string;
  description: string;
  example: string;
}

/** One row per column of the template, in column order. */
export function instructionRows(sourcesOfSale: readonly string[]): InstructionRow[] {
  return COLUMNS.map((c) => {
    const rules: string[] = [];
    if (c.maxLength !== undefined) rules.push(`at most ${c.maxLength} characters`);
    if (c.field === 'quantity') rules.push('greater than 0');
    if (c.field === 'unitPrice' || c.field === 'subTotal') rules.push('0 or more');
    if (c.field === 'sourceOfSale') rules.push(`one of: ${sourcesOfSale.join(', ')} (dropdown)`);
    if (c.field === 'carrierId') rules.push(`one of: ${CARRIER_IDS.join(', ')} (dropdown)`);
    if (c.field === 'countryCode') rules.push('ISO 3166-1 two-letter code (dropdown)');
    if (c.isTextFormatted) rules.push('column formatted as text');
    return {
      column: c.field,
      required: c.requiredValue ? 'yes' : 'optional',
      level: c.level,
      type: KIND_TEXT[c.kind],
      rules: rules.join('; '),
      description: c.description,
      example: c.example,
    };
  });
}
