/**
 * JSON schemas of hot responses, compiled by fastify (fast-json-stringify) into serializers that
 * are a few times faster than JSON.stringify. They must list every field of the view: a field
 * missing here would silently vanish from the answer (the conformance tests compare whole bodies).
 */
const text = { type: 'string' } as const;
const number = { type: 'number' } as const;
const maybeText = { type: ['string', 'null'] } as const;

const lineItem = {
  type: 'object',
  properties: {
    productId: text,
    name: text,
    customerLineItemId: text,
    quantity: { type: 'integer' },
    unitPrice: number,
    discount: number,
    disposition: text,
    status: text,
  },
} as const;

export const orderDetailsSchema = {
  type: 'object',
  properties: {
    customerOrderId: text,
    orderDate: text,
    orderRegionInfo: { type: 'object', properties: { city: maybeText, state: maybeText, country: maybeText, portalCode: maybeText } },
    sourceOfSale: text,
    lineItems: { type: 'array', items: lineItem },
    subTotal: number,
    salesTax: number,
    discountTotal: number,
    grandTotal: number,
    disposition: text,
  },
} as const;

/** `{ data: { orderDetails }, requestId }`: the answer to creating or reading one order. */
export const oneOrderResponseSchema = {
  type: 'object',
  properties: { data: { type: 'object', properties: { orderDetails: orderDetailsSchema } }, requestId: text },
} as const;
