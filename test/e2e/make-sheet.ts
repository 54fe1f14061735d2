/** Order sheets built in the test, dated relative to the clock the test runs under. */
import Papa from 'papaparse';
import { writeFileSync } from 'node:fs';

const HEADERS = [
  'customerOrderId', 'orderDate', 'sourceOfSale', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode',
  'countryCode', 'phone', 'carrierId', 'productId', 'customerLineItemId', 'name', 'quantity', 'unitPrice', 'salesTax',
];

/** `orders` valid orders of one or two lines each (productIds PRD-1001..PRD-1020, always in stock in the sandbox). */
export function writeOrdersCsv(path: string, options: { orders: number; prefix: string; orderDate: Date }): { rows: number; ids: string[] } {
  const rows: string[][] = [HEADERS];
  const ids: string[] = [];
  const date = options.orderDate.toISOString();
  for (let i = 0; i < options.orders; i++) {
    const id = `${options.prefix}-${String(i + 1).padStart(5, '0')}`;
    ids.push(id);
    const lines = i % 3 === 0 ? 2 : 1;
    for (let l = 0; l < lines; l++) {
      rows.push([
        id, date, 'OtherMarketplace', `Customer ${i}`, `${100 + i} Main St`, 'Springfield', 'IL', '62704', 'US', '217-555-0134',
        ['CarrierXGround', 'CarrierX2Day', 'CarrierXOvernight'][i % 3]!, `PRD-${1001 + ((i + l) % 20)}`, String(l + 1), `Item ${l + 1}`,
        String(1 + (i % 4)), `${5 + (i % 50)}.${String(i % 100).padStart(2, '0')}`, '1.25',
      ]);
    }
  }
  writeFileSync(path, Papa.unparse(rows));
  return { rows: rows.length - 1, ids };
}
