/** The API payload (api-spec.md 2.1) of a valid order, from its finished draft. */
import { centsToDollars } from '../contract/money.js';
import type { CarrierId } from '../contract/enums.js';
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { Field } from '../sheet/columns.js';
import { splitAddressLines } from './cells.js';
import type { OrderDraft } from './draft.js';
import type { OrderTotals } from './finish.js';
import type { SheetPlan } from './plan.js';

type ShippingDetails = NonNullable<CreateOrderPayload['orderShippingDetails']>;

export function buildPayload(d: OrderDraft, plan: SheetPlan, totals: OrderTotals): CreateOrderPayload {
  const text = (field: Field): string | undefined => {
    const v = d.refs[plan.byField.get(field)!.slot];
    return typeof v === 'string' ? v : undefined;
  };
  const instant = (field: Field): string | undefined => {
    const v = d.refs[plan.byField.get(field)!.slot];
    return typeof v === 'number' ? new Date(v).toISOString() : undefined;
  };
  const addressLines: string[] = [];
  for (const field of ['addressLine1', 'addressLine2', 'addressLine3'] as const) {
    const line = text(field);
    if (line !== undefined) addressLines.push(...splitAddressLines(line));
  }
  const email = text('email');
  const marketplaceOrderId = text('marketplaceOrderId');
  const requestedDeliveryDate = instant('requestedDeliveryDate');

  const payload: CreateOrderPayload = {
    customerDetails: {
      shippingAddress: {
        fullName: text('fullName') ?? '',
        ...(email !== undefined && { email }),
        addressLines,
        city: text('city') ?? '',
        provinceOrState: text('provinceOrState') ?? '',
        postalOrZipCode: text('postalOrZipCode') ?? '',
        countryCode: text('countryCode') ?? '',
        phone: text('phone') ?? '',
      },
    },
    orderDetails: {
      customerOrderId: d.customerOrderId ?? '',
      ...(marketplaceOrderId !== undefined && { marketplaceOrderId }),
      orderDate: instant('orderDate') ?? '',
      sourceOfSale: text('sourceOfSale') ?? '',
      lineItems: (d.lines ?? []).map((line) => ({
        productId: line.productId,
        customerLineItemId: line.customerLineItemId,
        name: line.name,
        quantity: line.quantity,
        unitPrice: centsToDollars(line.unitPriceCents),
        ...(line.discountCents !== null && { discount: centsToDollars(line.discountCents) }),
      })),
      ...(totals.discountTotalCents !== null && { discountTotal: centsToDollars(totals.discountTotalCents) }),
      subTotal: centsToDollars(totals.subTotalCents),
      salesTax: centsToDollars(totals.salesTaxCents),
      grandTotal: centsToDollars(totals.grandTotalCents),
      ...(requestedDeliveryDate !== undefined && { requestedDeliveryDate }),
    },
  };
  const shipping = buildShippingDetails(text);
  if (shipping !== undefined) payload.orderShippingDetails = shipping;
  return payload;
}

/** orderShippingDetails is sent when any of its fields is set (a carrier is then required, see finish.ts). */
function buildShippingDetails(text: (field: Field) => string | undefined): ShippingDetails | undefined {
  const carrierId = text('carrierId');
  const optional = {
    shippingAccountNumber: text('shippingAccountNumber'),
    shipLabelNameDisplay: text('shipLabelNameDisplay'),
    shippingContactName: text('shippingContactName'),
    shippingContactPhoneNumber: text('shippingContactPhoneNumber'),
  };
  if (carrierId === undefined) return undefined;
  const details: ShippingDetails = { carrierId: carrierId as CarrierId };
  for (const [key, value] of Object.entries(optional) as [keyof typeof optional, string | undefined][]) {
    if (value !== undefined) details[key] = value;
  }
  return details;
}
