/**
 * A draft profile for a header row nobody has mapped yet: the best column for each field, how sure the
 * guess is, and what is still missing. Guesses are offered, never applied on their own. Who a column is
 * about is read from its header first: a recipient's column (`Shipping Name`, `ship-phone-number`) is
 * never offered for the shipper's fields (shippingContactName, shippingContactPhoneNumber) nor the
 * reverse, the buyer's (`Billing *`) never for the recipient's, and a bare `Name` never for the item.
 */
import { COLUMN_BY_FIELD, FIELD_BY_HEADER, FIELDS, normalizeHeader, type Field } from '../sheet/columns.js';
import { isRoleAllowed, RECIPIENT_FIELDS, roleOf, roleOfHeader, tokensOf, type ColumnRole } from '../sheet/column-roles.js';
import { detectProfile } from './detect.js';
import { readForeignHeader, type NamePart } from './foreign-headers.js';
import type { ColumnRule, Profile, Rule } from './profile.js';
import { readValueHints } from './suggest-values.js';

/** `ambiguous`: two columns fit the field equally well; neither is chosen, both are named. */
export type Confidence = 'exact' | 'strong' | 'weak' | 'ambiguous';

export interface Guess {
  field: Field;
  /** The source column (0-based) and its header. */
  column: number;
  header: string;
  confidence: Confidence;
  /** An ambiguous guess: the other columns (0-based) that fit the field as well as this one. */
  rivals?: { column: number; header: string }[];
}

export interface Draft {
  profile: Profile;
  guesses: Guess[];
  /** Required fields no column was found for (a constant or a line number is not a guess). */
  missing: Field[];
  /** A known profile matched every column it needs: the draft is that profile. */
  matched?: Profile;
}

interface Candidate {
  field: Field;
  column: number;
  score: number;
}

const has = (tokens: readonly string[], ...words: string[]) => words.some((w) => tokens.includes(w));

/** How well a column's header fits a field, 0 when it does not (roles aside). */
function scoreHeader(field: Field, t: readonly string[]): number {
  const item = has(t, 'item', 'lineitem', 'product', 'line', 'sku', 'article');
  switch (field) {
    case 'customerOrderId':
      return has(t, 'order') && !item && !has(t, 'date', 'status', 'total', 'note', 'notes', 'marketplace', 'channel') ? (has(t, 'id', 'number', 'no', 'num', '#', 'ref', 'reference') ? 8 : 5) : 0;
    case 'marketplaceOrderId':
      return has(t, 'marketplace', 'channel', 'platform') && has(t, 'order') ? 8 : 0;
    case 'orderDate':
      if (has(t, 'delivery', 'deliver', 'paid', 'payment', 'fulfilled', 'cancelled', 'canceled', 'ship', 'shipped', 'due', 'updated', 'modified')) return 0;
      return has(t, 'date', 'created', 'placed', 'purchase', 'ordered', 'time') ? (has(t, 'order', 'purchase', 'created') ? 7 : 4) : 0;
    case 'requestedDeliveryDate':
      return has(t, 'delivery', 'deliver') && has(t, 'date', 'by', 'requested', 'start') ? 6 : 0;
    case 'sourceOfSale':
      return has(t, 'source', 'channel', 'marketplace') && !has(t, 'order') ? 3 : 0;
    case 'subTotal':
      return has(t, 'subtotal') && !item ? 3 : 0;
    case 'salesTax':
      return has(t, 'tax', 'taxes', 'vat', 'gst') && !has(t, 'rate', 'name', 'shipping', 'code', 'class', 'taxable') && !item ? 4 : 0;
    case 'discountTotal':
      return has(t, 'discount') && !item && !has(t, 'code') ? 3 : 0;
    case 'grandTotal':
      return has(t, 'total') && !has(t, 'sub', 'subtotal', 'tax', 'discount', 'shipping', 'refunded', 'fee') && !item ? 3 : 0;
    case 'fullName':
      if (!has(t, 'name') || item || has(t, 'first', 'last', 'company', 'business', 'file', 'user', 'display')) return 0;
      return t.length === 1 ? 0 : 6;
    case 'email':
      return has(t, 'email', 'mail') ? 6 : 0;
    case 'addressLine1':
      if (has(t, '2', '3', 'ip', 'email', 'mail')) return 0;
      if (has(t, 'address', 'addr') && has(t, '1', 'line')) return 8;
      return has(t, 'address', 'street', 'addr') ? 5 : 0;
    case 'addressLine2':
      return has(t, 'address', 'addr', 'street', 'line') && has(t, '2') && !item ? 8 : 0;
    case 'addressLine3':
      return has(t, 'address', 'addr', 'street', 'line') && has(t, '3') && !item ? 8 : 0;
    case 'city':
      return has(t, 'city', 'town', 'locality', 'suburb') ? 8 : 0;
    case 'provinceOrState':
      return has(t, 'state', 'province', 'region', 'county') && !has(t, 'status') ? (has(t, 'name') ? 5 : 7) : 0;
    case 'postalOrZipCode':
      return has(t, 'zip', 'postal', 'postcode', 'zipcode', 'plz') ? 8 : 0;
    case 'countryCode':
      return has(t, 'country') && !has(t, 'origin') ? (has(t, 'code', 'iso') ? 8 : 7) : 0;
    case 'phone':
      return has(t, 'phone', 'tel', 'telephone', 'mobile', 'cell') ? 7 : 0;
    case 'carrierId':
      return has(t, 'carrier', 'service', 'method') && !has(t, 'payment') ? 4 : 0;
    case 'shippingAccountNumber':
      return has(t, 'account') && has(t, 'shipping', 'carrier') ? 5 : 0;
    case 'shipLabelNameDisplay':
      return has(t, 'label') ? 4 : 0;
    case 'shippingContactName':
      return has(t, 'name', 'company', 'contact') && !item ? 6 : 0;
    case 'shippingContactPhoneNumber':
      return has(t, 'phone', 'tel', 'telephone') ? 6 : 0;
    case 'productId':
      if (has(t, 'sku')) return 9;
      return has(t, 'product', 'article', 'variant') && has(t, 'id', 'code', 'number') ? 6 : 0;
    case 'customerLineItemId':
      return (has(t, 'line', 'lineitem') || (has(t, 'item') && has(t, 'order'))) && has(t, 'id', 'number', 'no') ? 7 : has(t, 'item') && has(t, 'id') && !has(t, 'product') ? 4 : 0;
    case 'name':
      if (has(t, 'sku', 'id', 'code', 'number', 'quantity', 'qty', 'price')) return 0;
      if (item && has(t, 'name', 'title', 'description')) return 8;
      return has(t, 'title', 'description') ? 4 : 0;
    case 'quantity':
      return has(t, 'qty', 'quantity', 'units', 'count') && !has(t, 'refunded', 'shipped', 'returned') ? 8 : 0;
    case 'unitPrice':
      return has(t, 'price', 'cost', 'rate') && !has(t, 'compare', 'shipping', 'total', 'tax', 'sub') ? (has(t, 'unit', 'item', 'lineitem') ? 8 : 6) : 0;
    case 'discount':
      return has(t, 'discount') && item ? 6 : 0;
  }
}

/** A German, French or Spanish header's table entry is as sure as a plain English one. */
const FOREIGN_SCORE = 8;

interface NamePartColumn {
  column: number;
  part: NamePart;
  role: ColumnRole;
}

function isNamePart(target: Field | NamePart): target is NamePart {
  return target === 'given' || target === 'family' || target === 'given-or-full' || target === 'family-or-full';
}

/** The given-name and family-name columns (the recipient's before neutral ones), when the sheet has both. */
function pairNames(parts: readonly NamePartColumn[]): [number, number] | undefined {
  const pick = (kind: 'given' | 'family') => {
    const fits = parts.filter((p) => p.part.startsWith(kind));
    return (fits.find((p) => p.role === 'recipient') ?? fits[0])?.column;
  };
  const given = pick('given');
  const family = pick('family');
  return given !== undefined && family !== undefined && given !== family ? [given, family] : undefined;
}

/** Values like `#1041` or `1041`: an order number, not an item's name. */
function looksLikeOrderNumbers(samples: readonly string[]): boolean {
  return samples.length > 0 && samples.every((s) => /^#?[A-Z]{0,4}[-\d]{3,}$/i.test(s.trim()));
}

export interface SuggestInput {
  headers: readonly string[];
  /** A few non-blank values of each column, for telling an order number from an item's name. */
  samples?: readonly (readonly string[])[];
  /** Known profiles (built-in and saved): one that matches every column it needs is offered as it is. */
  known?: readonly Profile[];
  /** The draft's name (from the file's name). */
  name?: string;
  /** The first rows' cells as text: the date order, decimal mark and per-line amounts are read from them. */
  rows?: readonly (readonly string[])[];
}

export function suggestProfile(input: SuggestInput): Draft {
  const { headers } = input;
  const detection = input.known ? detectProfile(headers, input.known) : { kind: 'none' as const };
  if (detection.kind === 'strong') return draftOfKnown(detection.profile, headers);

  const candidates: Candidate[] = [];
  const nameParts: NamePartColumn[] = [];
  headers.forEach((header, column) => {
    const key = normalizeHeader(header);
    if (key === '') return;
    const tokens = tokensOf(header);
    const role = roleOf(tokens);
    const samples = input.samples?.[column] ?? [];
    // The template's own names, and its aliases when the column's role allows the field (eBay's `Buyer Name`
    // is not the recipient's), except a bare `name`: Shopify's Name is the order number.
    const exact = FIELD_BY_HEADER.get(key);
    if (exact !== undefined && !(exact === 'name' && key === 'name') && (key === normalizeHeader(exact) || isRoleAllowed(exact, roleOfHeader(header)))) {
      candidates.push({ field: exact, column, score: 20 });
      return;
    }
    if (key === 'name') {
      // Order numbers (#1041): the order's ID. The item's name only beside the template's own order ID column.
      if (looksLikeOrderNumbers(samples)) candidates.push({ field: 'customerOrderId', column, score: 6 });
      else if (headers.some((h) => FIELD_BY_HEADER.get(normalizeHeader(h)) === 'customerOrderId')) candidates.push({ field: 'name', column, score: 20 });
      return;
    }
    const foreign = readForeignHeader(header);
    if (foreign !== undefined) {
      if (isNamePart(foreign.target)) {
        if (isRoleAllowed('fullName', foreign.role)) nameParts.push({ column, part: foreign.target, role: foreign.role });
      } else if (isRoleAllowed(foreign.target, foreign.role)) {
        candidates.push({ field: foreign.target, column, score: FOREIGN_SCORE + roleBonus(foreign.target, foreign.role) });
      }
      return;
    }
    for (const field of FIELDS) {
      if (!isRoleAllowed(field, role)) continue;
      const score = scoreHeader(field, tokens);
      if (score > 0) candidates.push({ field, column, score: score + roleBonus(field, role) });
    }
  });

  const names = pairNames(nameParts);
  // `Nom` or `Nombre` with no other part of a name beside it may be the whole name: a guess to check.
  if (names === undefined) for (const p of nameParts) if (p.part.endsWith('-or-full')) candidates.push({ field: 'fullName', column: p.column, score: 5 + roleBonus('fullName', p.role) });
  const guesses = assign(candidates, headers);
  const fields: Partial<Record<Field, Rule>> = {};
  const notes: string[] = [];
  if (names !== undefined && !guesses.some((g) => g.field === 'fullName')) {
    const joined = names.map((c) => headers[c]!.trim());
    fields.fullName = { join: joined };
    notes.push(`fullName: "${joined[0]}" and "${joined[1]}" joined with a space (given and family name)`);
  }
  for (const g of guesses) {
    if (g.confidence === 'ambiguous') {
      notes.push(`${g.field}: AMBIGUOUS, ${columnsNamed(g)} fit it equally well; keep the right one: "${g.field}": { "column": "..." }`);
      continue;
    }
    fields[g.field] = { column: g.header };
    notes.push(`${g.field}: "${g.header}" (${g.confidence} guess)`);
  }
  const hints = readValueHints(new Map(guesses.filter((g) => g.confidence !== 'ambiguous').map((g) => [g.field, g.column])), input.rows ?? []);
  for (const field of hints.summed) fields[field] = { ...(fields[field] as ColumnRule), sum: true };
  notes.push(...hints.notes);
  if (fields.sourceOfSale === undefined) {
    fields.sourceOfSale = { constant: 'OtherMarketplace' };
    notes.push('sourceOfSale: no column; every order is set to OtherMarketplace (change the constant if another value is configured)');
  }
  if (fields.customerLineItemId === undefined) {
    fields.customerLineItemId = { generate: 'lineNumber' };
    notes.push("customerLineItemId: no column; each line is numbered 1, 2, 3... within its order");
  }
  const hesitated = new Set(guesses.filter((g) => g.confidence === 'ambiguous').map((g) => g.field));
  const missing = FIELDS.filter((f) => COLUMN_BY_FIELD.get(f)!.requiredColumn && fields[f] === undefined && !hesitated.has(f));
  for (const f of missing) notes.push(`${f}: MISSING, no column looks like it; add "${f}": { "column": "..." }`);
  const profile: Profile = {
    name: input.name ?? 'draft',
    label: labelOf(input.name ?? 'draft'),
    ...(hints.dateOrder && { dateOrder: hints.dateOrder }),
    ...(hints.dateFormat && { dateFormat: hints.dateFormat }),
    ...(hints.decimalMark && { decimalMark: hints.decimalMark }),
    fields,
    notes,
  };
  return { profile, guesses, missing };
}

/**
 * A recipient's own column beats a neutral one (`Shipping City` over `City` of a store). The email is the
 * one exception buyers' columns may feed (most marketplaces export only the buyer's, and the carrier writes
 * to it about the delivery), but a recipient's or a neutral one comes first.
 */
function roleBonus(field: Field, role: ReturnType<typeof roleOf>): number {
  if (role === 'recipient' && (RECIPIENT_FIELDS.has(field) || field === 'email')) return 1;
  return role === 'buyer' && field === 'email' ? -1 : 0;
}

/** `etsy-export` -> `Etsy export`: the draft's label, as the output's first line shows it. */
function labelOf(name: string): string {
  const words = name.replace(/[-_]+/g, ' ').trim();
  const label = `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
  return /\bexport$/i.test(label) ? label : `${label} export`;
}

/** `"Ship To Name" and "Recipient Name"`: the columns an ambiguous guess hesitates between. */
export function columnsNamed(guess: Guess, conjunction: 'and' | 'or' = 'and'): string {
  const names = [guess.header, ...(guess.rivals ?? []).map((r) => r.header)].map((h) => `"${h}"`);
  return names.length <= 2 ? names.join(` ${conjunction} `) : `${names.slice(0, -1).join(', ')} ${conjunction} ${names.at(-1)}`;
}

/**
 * Best candidates first; each column feeds one field and each field takes one column. Two columns that fit
 * a field equally well make an ambiguous guess naming both: neither is picked, and neither is offered for
 * another field.
 */
function assign(candidates: Candidate[], headers: readonly string[]): Guess[] {
  const sorted = [...candidates].sort((a, b) => b.score - a.score || a.column - b.column);
  const takenColumns = new Set<number>();
  const taken = new Map<Field, Guess>();
  const header = (column: number) => headers[column]!.trim();
  for (const c of sorted) {
    if (taken.has(c.field) || takenColumns.has(c.column)) continue;
    const rivals = sorted.filter((o) => o.field === c.field && o.column !== c.column && o.score === c.score && !takenColumns.has(o.column));
    takenColumns.add(c.column);
    if (rivals.length > 0) {
      for (const r of rivals) takenColumns.add(r.column);
      taken.set(c.field, { field: c.field, column: c.column, header: header(c.column), confidence: 'ambiguous', rivals: rivals.map((r) => ({ column: r.column, header: header(r.column) })) });
      continue;
    }
    const confidence: Confidence = c.score >= 20 ? 'exact' : c.score >= 6 ? 'strong' : 'weak';
    taken.set(c.field, { field: c.field, column: c.column, header: header(c.column), confidence });
  }
  return FIELDS.flatMap((f) => (taken.has(f) ? [taken.get(f)!] : []));
}

function draftOfKnown(profile: Profile, headers: readonly string[]): Draft {
  const keys = headers.map(normalizeHeader);
  const guesses: Guess[] = [];
  for (const field of FIELDS) {
    const rule = profile.fields[field];
    if (rule === undefined || !('column' in rule)) continue;
    const column = keys.indexOf(normalizeHeader(rule.column));
    if (column >= 0) guesses.push({ field, column, header: headers[column]!.trim(), confidence: 'exact' });
  }
  return { profile, guesses, missing: [], matched: profile };
}
