/**
 * The envelopes the API answers with (api-spec.md 4.2 to 4.6, PRODUCT.md section 6), built on the
 * lenient read schemas of the contract: extra fields pass, missing essentials fail loudly.
 */
import { z } from 'zod';
import { inventoryItemSchema, orderReadSchema, packageRecordSchema, paginationSchema } from '../contract/schemas.js';

const withOrderDetails = z.looseObject({ orderDetails: orderReadSchema });
const requestId = z.string().optional();
// Non-paginated answers may send pagination: null; callers only want "present or not".
const pagination = paginationSchema.nullish().transform((p) => p ?? undefined);

export const orderEnvelopeSchema = z.looseObject({ data: withOrderDetails, requestId });
export const ordersPageSchema = z.looseObject({ data: z.array(withOrderDetails), pagination, requestId });
/** One item of a list-orders answer, read on its own as the answer streams in (ApiClient.eachListedOrder). */
export const listedOrderSchema = withOrderDetails;
export const packagesPageSchema = z.looseObject({ data: z.array(packageRecordSchema), pagination, requestId });
export const inventoryPageSchema = z.looseObject({ data: z.array(inventoryItemSchema), pagination, requestId });

/** "data[3].orderDetails.lineItems: expected array, received undefined; ..." (first few problems). */
export function describeSchemaProblems(error: z.ZodError, limit = 3): string {
  const parts = error.issues.slice(0, limit).map((issue) => {
    const path = issue.path.reduce<string>(
      (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc === '' ? String(key) : `${acc}.${String(key)}`),
      '',
    );
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  const more = error.issues.length > limit ? `; and ${error.issues.length - limit} more` : '';
  return parts.join('; ') + more;
}
