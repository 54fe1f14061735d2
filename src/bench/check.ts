/**
 * Benchmark of the checker alone: rows in the form a CSV reader hands them over (strings cut out
 * of a line, as papaparse does), generated batch by batch so the sheet itself takes no memory,
 * checked by checkSheet over an in-memory OpenedSheet. Prints nothing; the caller prints.
 */
import { checkSheet } from '../orders/check-sheet.js';
import { FIELDS, type Field } from '../sheet/columns.js';
import type { OpenedSheet, RawRow } from '../sheet/types.js';

export interface CheckMeasurement {
  /** Wall time of checkSheet, generation of the rows included. */
  ms: number;
  /** Wall time of generating and iterating the same rows without checking them. */
  generateMs: number;
  rows: number;
  orders: number;
  invalidOrders: number;
  peakRssMb: number;
}

type OrderField = Exclude<Field, 'productId' | 'customerLineItemId' | 'name' | 'quantity' | 'unitPrice' | 'discount'>;
const ORDER_FIELDS = FIELDS.slice(0, FIELDS.indexOf('productId')) as OrderField[];

const NOW = new Date('2026-11-20T12:00:00.000Z');
const BATCH = 2_000;
const PRODUCTS = Array.from({ length: 500 }, (_, i) => ({ id: `PRD-${1000 + i}`, name: `Ceramic mug model ${i} blue`, cents: 199 + ((i * 137) % 9_800) }));
const FIRST = ['Maria', 'James', 'Wei', 'Aisha', 'Olga', 'Juan', 'Priya', 'Tom'];
const LAST = ['Lopez', 'Smith', 'Chen', 'Khan', 'Ivanova', 'Garcia', 'Patel', 'Brown'];
const CITIES = [['Springfield', 'IL'], ['Portland', 'OR'], ['Austin', 'TX'], ['Boston', 'MA']] as const;

export async function measureCheck(rows: number): Promise<CheckMeasurement> {
  // The checking pass runs first, on a fresh heap, so the peak RSS is the checker's own.
  let peakRss = process.memoryUsage().rss;
  const opened: OpenedSheet = {
    file: 'bench.csv',
    format: 'csv',
    headers: [...FIELDS],
    headerRow: 1,
    sizeBytes: 0,
    rows: generateRows(rows),
    bytesRead: () => 0,
    sha256: () => '0'.repeat(64),
  };
  const ctx = { now: NOW, timezone: 'America/New_York', sourcesOfSale: ['OtherMarketplace'] };
  const start = performance.now();
  const sheet = await checkSheet(opened, { columns: [...FIELDS], issues: [] }, ctx, {
    onProgress: () => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    },
  });
  const ms = performance.now() - start;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const result = {
    rows: sheet.rows.size,
    orders: sheet.orders.length,
    invalidOrders: sheet.orders.filter((o) => o.status === 'invalid').length,
  };

  const generateStart = performance.now();
  let generated = 0;
  for await (const batch of generateRows(rows)) generated += batch.length;
  const generateMs = performance.now() - generateStart;
  if (generated !== rows) throw new Error(`generated ${generated} rows, expected ${rows}`);
  return { ms: Math.round(ms), generateMs: Math.round(generateMs), ...result, peakRssMb: Math.round(peakRss / 1_048_576) };
}

/** Orders of 1 to 5 lines (3 on average), every order-level cell repeated on each of its rows. */
async function* generateRows(total: number): AsyncGenerator<RawRow[]> {
  let seed = 42;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  let rowNumber = 2;
  let order = 0;
  let batch: RawRow[] = [];
  while (rowNumber - 2 < total) {
    order++;
    const lines = Math.min(1 + random(5), total - (rowNumber - 2));
    const items = Array.from({ length: lines }, () => ({ product: PRODUCTS[random(PRODUCTS.length)]!, quantity: 1 + random(4) }));
    const subTotal = items.reduce((sum, item) => sum + item.product.cents * item.quantity, 0);
    const tax = Math.round(subTotal * 0.0825);
    const [city, state] = CITIES[order % CITIES.length]!;
    const day = 1 + random(20);
    const orderValues: Record<OrderField, string> = {
      customerOrderId: `SO-${100_000 + order}`,
      marketplaceOrderId: `113-${String(order).padStart(7, '0')}-${String(order * 7).padStart(7, '0')}`,
      orderDate: `2026-11-${String(day).padStart(2, '0')} ${String(random(24)).padStart(2, '0')}:${String(random(60)).padStart(2, '0')}`,
      sourceOfSale: 'OtherMarketplace',
      requestedDeliveryDate: '2026-12-01',
      subTotal: cents(subTotal),
      salesTax: cents(tax),
      discountTotal: '',
      grandTotal: cents(subTotal + tax),
      fullName: `${FIRST[order % 8]} ${LAST[(order >> 3) % 8]}`,
      email: `customer${order}@example.com`,
      addressLine1: `${100 + (order % 9_000)} Main Street`,
      addressLine2: order % 3 === 0 ? `Apt ${order % 50}` : '',
      addressLine3: '',
      city,
      provinceOrState: state,
      postalOrZipCode: String(10_000 + (order % 89_999)),
      countryCode: 'US',
      phone: `(217) 555-${String(order % 10_000).padStart(4, '0')}`,
      carrierId: 'CarrierXGround',
      shippingAccountNumber: '',
      shipLabelNameDisplay: 'Acme Mugs',
      shippingContactName: '',
      shippingContactPhoneNumber: '',
    };
    const prefix = ORDER_FIELDS.map((f) => orderValues[f]).join(',');
    for (let k = 0; k < items.length; k++) {
      const { product, quantity } = items[k]!;
      // productId, customerLineItemId, name, quantity, unitPrice, discount
      const line = `${prefix},${product.id},${k + 1},${product.name},${quantity},${cents(product.cents)},`;
      // Cut into cells as a CSV parser does: the cells are slices of the line.
      batch.push({ rowNumber: rowNumber++, cells: line.split(',') });
      if (batch.length === BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

function cents(value: number): string {
  return `${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`;
}
