/**
 * Payload contract of the fulfillment API (api-spec.md 2.1, 2.2, 2.6 to 2.8, section 5; PRODUCT.md section 6).
 * The sandbox validates requests with these schemas; the client sends and reads these shapes.
 * The sheet checker has its own fast path but shares every constant, and a test proves that
 * what it calls valid, the schema accepts.
 */
import { z } from 'zod';
import { CARRIER_IDS, COUNTRY_CODES, DEFAULT_SOURCES_OF_SALE, LINE_ITEM_DISPOSITIONS, ORDER_DISPOSITIONS } from './enums.js';
import { parseApiInstant } from './instant.js';
import { LIMITS } from './limits.js';

/** US ZIP: 5 digits, or ZIP+4 with a separating dash. */
export const US_ZIP_PATTERN = /^\d{5}(?:-\d{4})?$/;
/** A pragmatic address check: something@domain.tld, no spaces. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function countDigits(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

const nonBlank = (max: number) => z.string().trim().min(1, 'is required').max(max, `must be at most ${max} characters`);

export const addressSchema = z
  .object({
    fullName: nonBlank(LIMITS.fullName),
    email: z.string().max(LIMITS.email, `must be at most ${LIMITS.email} characters`).regex(EMAIL_PATTERN, 'is not an email address').optional(),
    addressLines: z
      .array(z.string().trim().min(1, 'must not be blank').max(LIMITS.addressLineMax, `must be at most ${LIMITS.addressLineMax} characters`))
      .min(LIMITS.addressLinesMin, 'Must have at least one address line.')
      .max(LIMITS.addressLinesMax, `must have at most ${LIMITS.addressLinesMax} address lines`),
    city: nonBlank(LIMITS.city),
    provinceOrState: z.string().trim().min(1, 'is required'),
    postalOrZipCode: z.string().trim().min(1, 'is required'),
    countryCode: z.string().refine((c) => COUNTRY_CODES.includes(c), 'must be an ISO 3166-1 alpha-2 country code'),
    phone: z
      .string()
      .max(LIMITS.phoneMaxLength, `must be at most ${LIMITS.phoneMaxLength} characters`)
      .refine((p) => countDigits(p) >= LIMITS.phoneMinDigits, `must have at least ${LIMITS.phoneMinDigits} digits`),
  })
  .superRefine((a, ctx) => {
    if (a.countryCode === 'US' && !US_ZIP_PATTERN.test(a.postalOrZipCode)) {
      ctx.addIssue({ code: 'custom', path: ['postalOrZipCode'], message: 'must be 5 digits or ZIP+4 (12345-6789) for US addresses' });
    }
  });

export const lineItemSchema = z.object({
  productId: nonBlank(LIMITS.productId),
  customerLineItemId: nonBlank(LIMITS.customerLineItemId),
  name: nonBlank(LIMITS.lineItemName),
  quantity: z.number().int('must be a whole number').gt(0, 'must be greater than 0'),
  unitPrice: z.number().min(0, 'must be >= 0'),
  discount: z.number().optional(),
});

export const shippingDetailsSchema = z.object({
  carrierId: z.enum(CARRIER_IDS),
  shippingAccountNumber: z.string().optional(),
  shipLabelNameDisplay: z.string().optional(),
  shippingContactName: z.string().optional(),
  shippingContactPhoneNumber: z.string().optional(),
});

/** An ISO 8601 date-time as the API reads it (instant.ts): a real date and time, an offset or UTC. */
export const isoDateTime = z.string().refine((s) => parseApiInstant(s) !== null, 'must be an ISO 8601 date-time');

export function createOrderSchema(sourcesOfSale: readonly string[] = DEFAULT_SOURCES_OF_SALE) {
  return z.object({
    customerDetails: z.object({ shippingAddress: addressSchema }),
    orderDetails: z.object({
      customerOrderId: nonBlank(LIMITS.customerOrderId),
      marketplaceOrderId: z.string().max(LIMITS.marketplaceOrderId, `must be at most ${LIMITS.marketplaceOrderId} characters`).optional(),
      orderDate: isoDateTime,
      sourceOfSale: z
        .string()
        .max(LIMITS.sourceOfSale)
        .refine((s) => sourcesOfSale.includes(s), `must be one of ${sourcesOfSale.join(', ')}`),
      lineItems: z.array(lineItemSchema).min(1, 'must have at least one line item'),
      discountTotal: z.number().optional(),
      subTotal: z.number().min(0, 'must be >= 0'),
      salesTax: z.number(),
      grandTotal: z.number(),
      requestedDeliveryDate: isoDateTime.optional(),
    }),
    orderShippingDetails: shippingDetailsSchema.optional(),
  });
}

export type CreateOrderPayload = z.infer<ReturnType<typeof createOrderSchema>>;
export type ShippingAddress = z.infer<typeof addressSchema>;
export type OrderLineItemInput = z.infer<typeof lineItemSchema>;

// ---- Read side (responses). Lenient: the client must cope with extra or missing fields. ----

export const orderLineItemReadSchema = z.looseObject({
  productId: z.string(),
  name: z.string().optional(),
  customerLineItemId: z.string(),
  quantity: z.number(),
  unitPrice: z.number().optional(),
  discount: z.number().optional(),
  disposition: z.string().optional(),
  status: z.string().optional(),
});
export type OrderLineItemRead = z.infer<typeof orderLineItemReadSchema>;

export const orderReadSchema = z.looseObject({
  customerOrderId: z.string(),
  orderDate: z.string().optional(),
  orderRegionInfo: z
    .looseObject({
      city: z.string().nullable().optional(),
      state: z.string().nullable().optional(),
      country: z.string().nullable().optional(),
      portalCode: z.string().nullable().optional(),
    })
    .optional(),
  sourceOfSale: z.string().optional(),
  lineItems: z.array(orderLineItemReadSchema),
  subTotal: z.number().optional(),
  salesTax: z.number().optional(),
  discountTotal: z.number().optional(),
  grandTotal: z.number().optional(),
  disposition: z.string().optional(),
});
export type OrderRead = z.infer<typeof orderReadSchema>;

export const trackingEventSchema = z.looseObject({ eventType: z.string(), eventTimestamp: z.string() });

export const packageRecordSchema = z.looseObject({
  packageId: z.string(),
  customerOrderId: z.string(),
  packageContents: z.array(
    z.looseObject({
      productId: z.string(),
      sku: z.string().optional(),
      upc: z.string().optional(),
      quantity: z.number(),
      customerLineItemId: z.string(),
      lineItemProductId: z.string().optional(),
    }),
  ),
  trackingDetail: z.looseObject({
    trackingNumber: z.string().optional(),
    trackingUrl: z.string().optional(),
    shippingCarrier: z.string().optional(),
    serviceLevel: z.string().optional(),
    originFc: z.string().optional(),
    shipDate: z.string().optional(),
    estimatedDeliveryDate: z.string().optional(),
    lastUpdated: z.string().optional(),
    trackingEvents: z.array(trackingEventSchema).default([]),
  }),
  lastUpdated: z.string().optional(),
  dateReplaced: z.string().optional(),
  replacedByPackageId: z.string().optional(),
});
export type PackageRecord = z.infer<typeof packageRecordSchema>;

export const paginationSchema = z.looseObject({ page: z.number(), totalPages: z.number() });
export type Pagination = z.infer<typeof paginationSchema>;

export const inventoryItemSchema = z.looseObject({
  productId: z.string(),
  sku: z.string().optional(),
  upc: z.string().optional(),
  name: z.string().optional(),
  availableQuantity: z.number(),
  fulfillmentCenters: z.array(z.looseObject({ id: z.string(), availableQuantity: z.number() })).default([]),
});
export type InventoryItem = z.infer<typeof inventoryItemSchema>;

/** PRODUCT.md section 6: `{ message, errors?: [{ field?, message }], requestId }`. */
export interface ApiErrorBody {
  message: string;
  errors?: { field?: string; message: string }[];
  requestId: string;
}

export const ORDER_DISPOSITION_FILTERS = [...ORDER_DISPOSITIONS, 'all'] as const;
export const LINE_ITEM_DISPOSITION_FILTERS = [...LINE_ITEM_DISPOSITIONS, 'all'] as const;

/** The exact messages of api-spec.md section 7 and PRODUCT.md section 6. */
export const API_MESSAGES = {
  invalidField: '0 Shippable Quantity',
  noAddressLine: 'Must have at least one address line.',
  outOfStock: (productId: string) => `Shippable Inventory out of stock for ProductId '${productId}'.`,
  alreadyExists: (customerOrderId: string) => `Order '${customerOrderId}' already exists.`,
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
} as const;
