/**
 * The one builder of order payloads (api-spec.md 2.1) for every test: a valid order, one line by
 * default, its totals computed in cents from its lines (discountTotal only when a line has a
 * discount; grandTotal = subTotal + salesTax, as PRODUCT.md section 6 decides). Options set what a
 * test depends on; everything else is a plausible order the sandbox accepts.
 */
import type { CreateOrderPayload } from '../../src/contract/schemas.js';

type ShippingAddress = CreateOrderPayload['customerDetails']['shippingAddress'];
type ShippingDetails = NonNullable<CreateOrderPayload['orderShippingDetails']>;

export interface LineSpec {
  /** Default PRD-1001, stocked in every center of the sandbox's catalogue. */
  productId?: string;
  /** Default L1, L2, ... by position. */
  customerLineItemId?: string;
  name?: string;
  quantity?: number;
  /** Dollars; default 12.50. */
  unitPrice?: number;
  /** Dollars off each unit. */
  discount?: number;
}

export interface OrderPayloadSpec {
  lines?: LineSpec[];
  /** Default ORDER_DATE. */
  orderDate?: string;
  /** Dollars; default 1.25. */
  salesTax?: number;
  /** Sets orderShippingDetails.carrierId (any text: a test may send one the API refuses). */
  carrierId?: string;
  /** Fields of the shipping address to replace. */
  address?: Partial<ShippingAddress>;
}

/** An hour before the sandbox tests' clock starts (test/sandbox/helpers.ts START): any fixed instant works. */
export const ORDER_DATE = '2031-03-10T14:00:00.000Z';

export function buildOrderPayload(customerOrderId: string, spec: OrderPayloadSpec = {}): CreateOrderPayload {
  const lineItems = (spec.lines ?? [{}]).map((l, i) => ({
    productId: l.productId ?? 'PRD-1001',
    customerLineItemId: l.customerLineItemId ?? `L${i + 1}`,
    name: l.name ?? `Item ${i + 1}`,
    quantity: l.quantity ?? 1,
    unitPrice: l.unitPrice ?? 12.5,
    ...(l.discount === undefined ? {} : { discount: l.discount }),
  }));
  const cents = (dollars: number) => Math.round(dollars * 100);
  const subCents = lineItems.reduce((sum, l) => sum + cents(l.unitPrice) * l.quantity, 0);
  const discountCents = lineItems.reduce((sum, l) => sum + cents(l.discount ?? 0) * l.quantity, 0);
  const taxCents = cents(spec.salesTax ?? 1.25);
  return {
    customerDetails: {
      shippingAddress: {
        fullName: 'Ada Lovelace',
        email: 'ada@example.com',
        addressLines: ['12 Analytical Way', 'Suite 3'],
        city: 'Springfield',
        provinceOrState: 'IL',
        postalOrZipCode: '62701',
        countryCode: 'US',
        phone: '(217) 555-0142',
        ...spec.address,
      },
    },
    orderDetails: {
      customerOrderId,
      marketplaceOrderId: `MP-${customerOrderId}`,
      orderDate: spec.orderDate ?? ORDER_DATE,
      sourceOfSale: 'OtherMarketplace',
      lineItems,
      ...(discountCents > 0 ? { discountTotal: discountCents / 100 } : {}),
      subTotal: subCents / 100,
      salesTax: taxCents / 100,
      grandTotal: (subCents + taxCents) / 100,
    },
    ...(spec.carrierId ? { orderShippingDetails: { carrierId: spec.carrierId as ShippingDetails['carrierId'] } } : {}),
  };
}
