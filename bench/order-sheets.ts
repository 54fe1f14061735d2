/**
 * Large order sheets for the benchmarks and for the tests that need many rows: realistic, valid and
 * the same on every run (a seeded generator), written as CSV or XLSX.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { formatCents } from '../src/contract/money.js';
import { COLUMNS, type Field } from '../src/sheet/columns.js';

type Value = string | number | Date;

const PLACES = [
  ['New York', 'NY', '10001'], ['Los Angeles', 'CA', '90012'], ['Chicago', 'IL', '60601'], ['Houston', 'TX', '77002'],
  ['Phoenix', 'AZ', '85004'], ['Philadelphia', 'PA', '19103'], ['San Antonio', 'TX', '78205'], ['San Diego', 'CA', '92101'],
  ['Dallas', 'TX', '75201'], ['Boston', 'MA', '02134'], ['Springfield', 'IL', '62701'], ['Seattle', 'WA', '98101'],
  ['Denver', 'CO', '80202'], ['Miami', 'FL', '33130'], ['Atlanta', 'GA', '30303'], ['Portland', 'OR', '97205'],
  ['Newark', 'NJ', '07102'], ['Hartford', 'CT', '06103'], ['Burlington', 'VT', '05401'], ['Portland', 'ME', '04101'],
] as const;
const FIRST = ['Maria', 'James', 'Aisha', 'Wei', 'Olivia', 'Diego', 'Fatima', 'Liam', 'Noah', 'Emma', 'Sofia', 'Ethan', 'Chloé', 'Zoë'];
const LAST = ['Lopez', 'Smith', 'Khan', 'Chen', 'Johnson', "O'Brien", 'Garcia', 'Nguyen', 'Müller', 'Brown', 'Davis', 'Wilson'];
const STREETS = ['Main St', 'Oak Ave', 'Maple Dr', 'Cedar Ln', 'Elm St', 'Park Blvd', 'Lakeview Rd', 'Washington Ave'];
const CARRIERS = ['CarrierXGround', 'CarrierX2Day', 'CarrierXOvernight', ''];
const ITEM_NAMES = ['Ceramic mug, blue', 'Cotton T-shirt (M)', 'Steel water bottle 750 ml', 'Notebook "A5", dotted', 'Desk lamp'];
/** PRD-1001..PRD-1020: the sandbox stocks these plentifully in every center, so benchmark imports never run out. */
const PRODUCTS = Array.from({ length: 20 }, (_, i) => ({ id: `PRD-${1001 + i}`, name: ITEM_NAMES[i % 5]!, priceCents: 499 + ((i * 737) % 9000) }));

/** mulberry32: small, fast and seedable, so a sheet is the same on every run. */
function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COLUMN_INDEX = Object.fromEntries(COLUMNS.map((c, i) => [c.field, i])) as Record<Field, number>;

const pad2 = (n: number): string => (n < 10 ? '0' : '') + n;
const formatDateTime = (d: Date): string =>
  `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;

/**
 * Calls `emit` `rows` times with one row's values in COLUMNS order: about three lines per order,
 * order-level cells repeated on each line as marketplace exports do, orders ten minutes to four
 * days old, totals exact in cents. `asText` gives CSV strings; otherwise money and quantities are
 * numbers and orderDate a Date whose UTC fields are the time shown.
 */
export function generateOrderRows(rows: number, now: Date, asText: boolean, emit: (row: Value[]) => void): void {
  const random = createRandom(0x5eed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const money = (cents: number): Value => (asText ? formatCents(cents) : cents / 100);
  const count = (n: number): Value => (asText ? String(n) : n);
  let written = 0;
  for (let order = 1; written < rows; order++) {
    const lines = Array.from({ length: Math.min(1 + Math.floor(random() * 5), rows - written) }, (_, i) => {
      const product = pick(PRODUCTS);
      return { product, lineId: i + 1, quantity: 1 + Math.floor(random() * 4), discountCents: random() < 0.3 ? Math.round(product.priceCents * 0.1) : 0 };
    });
    const subTotal = lines.reduce((sum, l) => sum + l.product.priceCents * l.quantity, 0);
    const discountTotal = lines.reduce((sum, l) => sum + l.discountCents * l.quantity, 0);
    const salesTax = Math.round(subTotal * 0.0825);
    const orderMs = Math.floor((now.getTime() - 600_000 - random() * 4 * 86_400_000) / 60_000) * 60_000;
    const [city, state, zip] = pick(PLACES);
    const first = pick(FIRST);
    const last = pick(LAST);
    const values: Partial<Record<Field, Value>> = {
      customerOrderId: `SO-${100000 + order}`,
      marketplaceOrderId: `113-${String(order).padStart(7, '0')}-${1000000 + Math.floor(random() * 9000000)}`,
      orderDate: asText ? formatDateTime(new Date(orderMs)) : new Date(orderMs),
      sourceOfSale: 'OtherMarketplace',
      requestedDeliveryDate: formatDateTime(new Date(orderMs + 5 * 86_400_000)).slice(0, 10),
      subTotal: money(subTotal),
      salesTax: money(salesTax),
      discountTotal: money(discountTotal),
      grandTotal: money(subTotal + salesTax),
      fullName: `${first} ${last}`,
      email: `${first.toLowerCase()}.${last.toLowerCase().replace(/[^a-z]/g, '')}@example.com`,
      addressLine1: `${1 + Math.floor(random() * 9899)} ${pick(STREETS)}`,
      addressLine2: random() < 0.3 ? `Apt ${1 + Math.floor(random() * 30)}${pick(['A', 'B', 'C'])}` : '',
      city,
      provinceOrState: state,
      postalOrZipCode: random() < 0.2 ? `${zip}-${1000 + Math.floor(random() * 9000)}` : zip,
      countryCode: 'US',
      phone: `(${200 + Math.floor(random() * 700)}) 555-${1000 + Math.floor(random() * 9000)}`,
      carrierId: pick(CARRIERS),
    };
    const orderRow = COLUMNS.map((c) => values[c.field] ?? '');
    for (const line of lines) {
      const row = orderRow.slice();
      row[COLUMN_INDEX.productId] = line.product.id;
      row[COLUMN_INDEX.customerLineItemId] = count(line.lineId);
      row[COLUMN_INDEX.name] = line.product.name;
      row[COLUMN_INDEX.quantity] = count(line.quantity);
      row[COLUMN_INDEX.unitPrice] = money(line.product.priceCents);
      row[COLUMN_INDEX.discount] = line.discountCents > 0 ? money(line.discountCents) : '';
      emit(row);
      written++;
    }
  }
}

/**
 * Quotes a generated value when CSV needs it. Not a general CSV writer: Papa.unparse does the
 * same at ~15 µs a row, which makes a million-row fixture take 15 s instead of about two.
 */
function csvField(value: Value): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** COLUMNS lists order-level fields before line-level ones; a CSV line then reuses its order's prefix. */
const FIRST_LINE_COLUMN = COLUMNS.findIndex((c) => c.level === 'line');
const IS_ORDER_FIRST = FIRST_LINE_COLUMN > 0 && COLUMNS.slice(FIRST_LINE_COLUMN).every((c) => c.level === 'line');
const ORDER_ID_COLUMN = COLUMNS.findIndex((c) => c.field === 'customerOrderId');

export async function writeLargeCsv(path: string, rows: number, now: Date): Promise<void> {
  const fd = openSync(path, 'w');
  try {
    let buffer = COLUMNS.map((c) => c.field).join(',') + '\r\n';
    let orderCells: Value[] | null = null;
    let prefix = '';
    generateOrderRows(rows, now, true, (row) => {
      if (!IS_ORDER_FIRST) {
        buffer += row.map(csvField).join(',') + '\r\n';
      } else {
        // Lines of one order come together and repeat every order-level value.
        if (orderCells === null || row[ORDER_ID_COLUMN] !== orderCells[ORDER_ID_COLUMN]) {
          orderCells = row.slice(0, FIRST_LINE_COLUMN);
          prefix = orderCells.map(csvField).join(',') + ',';
        }
        buffer += prefix + row.slice(FIRST_LINE_COLUMN).map(csvField).join(',') + '\r\n';
      }
      if (buffer.length > 1 << 20) {
        writeSync(fd, buffer);
        buffer = '';
      }
    });
    writeSync(fd, buffer);
  } finally {
    closeSync(fd);
  }
}

/** exceljs's streaming writer, shared strings like Excel; text-formatted ID/ZIP/phone columns, typed dates and money. */
export async function writeLargeXlsx(path: string, rows: number, now: Date): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true, useStyles: true });
  const sheet = workbook.addWorksheet('Orders');
  sheet.columns = COLUMNS.map((c) => ({
    header: c.field,
    key: c.field,
    width: 16,
    style: c.field === 'orderDate' ? { numFmt: 'yyyy-mm-dd hh:mm' } : c.isTextFormatted ? { numFmt: '@' } : {},
  }));
  generateOrderRows(rows, now, false, (row) => sheet.addRow(row).commit());
  sheet.commit();
  await workbook.commit();
}
