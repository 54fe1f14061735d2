/** Limits of api-spec.md section 8 (and 2.1), in one place for the checker, the client and the sandbox. */
export const LIMITS = {
  fullName: 100,
  email: 100,
  addressLineMax: 255,
  addressLinesMin: 1,
  addressLinesMax: 3,
  city: 50,
  phoneMinDigits: 10,
  phoneMaxLength: 35,
  countryCodeLength: 2,
  customerOrderId: 40,
  marketplaceOrderId: 40,
  sourceOfSale: 50,
  productId: 50,
  customerLineItemId: 40,
  lineItemName: 100,
  /** orderDate must be less than this many days old on creation, and not in the future. */
  orderDateMaxAgeDays: 30,
  /** orderRegionInfo is redacted this many days after the order creation day. */
  regionRedactionDays: 30,
  trackingHoursMax: 720,
  itemsPerPageMax: 100,
  pageNumberMin: 1,
  lastDaysDefault: 30,
  lastDaysMax: 365,
  tokenLifetimeSeconds: 3600,
} as const;
