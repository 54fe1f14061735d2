/**
 * Common German, French and Spanish headers of shop exports, for `mapping suggest` and the web's
 * mapping step. Read after folding (case, accents, ß, punctuation aside: `Straße` is `strasse`), with
 * the words that say whose column it is taken off first and kept as its role: a billing column
 * (`Rechnungs-`, `facturation`, `facturación`) is the buyer's and never feeds the recipient's fields;
 * a delivery one (`Liefer-`, `Versand-`, `livraison`, `envío`) is the recipient's.
 */
import type { ColumnRole } from '../sheet/column-roles.js';
import type { Field } from '../sheet/columns.js';

/** A person's given or family name: the two make fullName joined; `Nom` and `Nombre` alone may be the whole name. */
export type NamePart = 'given' | 'family' | 'given-or-full' | 'family-or-full';

export interface ForeignHeader {
  target: Field | NamePart;
  role: ColumnRole;
}

const TABLE: Record<string, Field | NamePart> = {
  // German
  bestellnummer: 'customerOrderId', 'bestell nr': 'customerOrderId', bestellnr: 'customerOrderId', auftragsnummer: 'customerOrderId', bestellung: 'customerOrderId',
  bestelldatum: 'orderDate', auftragsdatum: 'orderDate', datum: 'orderDate',
  vorname: 'given', nachname: 'family', 'name vollstandig': 'fullName', 'vollstandiger name': 'fullName',
  strasse: 'addressLine1', 'strasse hausnummer': 'addressLine1', 'strasse und hausnummer': 'addressLine1', adresse: 'addressLine1', anschrift: 'addressLine1', adresszusatz: 'addressLine2', 'adresse 2': 'addressLine2',
  plz: 'postalOrZipCode', postleitzahl: 'postalOrZipCode', ort: 'city', stadt: 'city', wohnort: 'city', land: 'countryCode', bundesland: 'provinceOrState',
  telefon: 'phone', telefonnummer: 'phone', handy: 'phone',
  menge: 'quantity', anzahl: 'quantity', stuckzahl: 'quantity', einzelpreis: 'unitPrice', stuckpreis: 'unitPrice', preis: 'unitPrice',
  artikelnummer: 'productId', 'artikel nr': 'productId', artikelnr: 'productId', artikelname: 'name', artikelbezeichnung: 'name', artikel: 'name', produktname: 'name', bezeichnung: 'name',
  mwst: 'salesTax', mehrwertsteuer: 'salesTax', ust: 'salesTax', steuer: 'salesTax', zwischensumme: 'subTotal', gesamtbetrag: 'grandTotal', gesamtsumme: 'grandTotal', rabatt: 'discountTotal', versandart: 'carrierId', versanddienstleister: 'carrierId',
  // French
  'numero commande': 'customerOrderId', 'n commande': 'customerOrderId', 'no commande': 'customerOrderId', commande: 'customerOrderId', 'reference commande': 'customerOrderId',
  'date commande': 'orderDate', prenom: 'given', nom: 'family-or-full', 'nom famille': 'family', 'nom complet': 'fullName',
  'adresse 1': 'addressLine1', 'complement adresse': 'addressLine2', 'code postal': 'postalOrZipCode', ville: 'city', pays: 'countryCode', region: 'provinceOrState', departement: 'provinceOrState',
  telephone: 'phone', quantite: 'quantity', 'prix unitaire': 'unitPrice', reference: 'productId', 'reference produit': 'productId', 'nom produit': 'name', produit: 'name', designation: 'name', 'nom article': 'name',
  tva: 'salesTax', 'sous total': 'subTotal', remise: 'discountTotal', transporteur: 'carrierId', 'mode livraison': 'carrierId', mode: 'carrierId',
  // Spanish
  'numero pedido': 'customerOrderId', 'n pedido': 'customerOrderId', 'no pedido': 'customerOrderId', pedido: 'customerOrderId',
  fecha: 'orderDate', 'fecha pedido': 'orderDate', nombre: 'given-or-full', apellido: 'family', apellidos: 'family', 'nombre completo': 'fullName',
  direccion: 'addressLine1', 'direccion 2': 'addressLine2', 'codigo postal': 'postalOrZipCode', ciudad: 'city', localidad: 'city', poblacion: 'city', provincia: 'provinceOrState', pais: 'countryCode',
  telefono: 'phone', cantidad: 'quantity', 'precio unitario': 'unitPrice', precio: 'unitPrice', referencia: 'productId', producto: 'name', articulo: 'name', 'nombre producto': 'name', descripcion: 'name',
  iva: 'salesTax', impuesto: 'salesTax', descuento: 'discountTotal', 'importe total': 'grandTotal', transportista: 'carrierId', metodo: 'carrierId',
};

/** Words that say whose column it is, and the one-word prefixes that do (`Rechnungsstraße`, `Lieferadresse`). */
const ROLE_WORDS: Record<string, ColumnRole> = {
  facturation: 'buyer', facturacion: 'buyer', rechnung: 'buyer', rechnungs: 'buyer', kaufer: 'buyer', acheteur: 'buyer', comprador: 'buyer',
  livraison: 'recipient', envio: 'recipient', entrega: 'recipient', lieferung: 'recipient', liefer: 'recipient', versand: 'recipient', empfanger: 'recipient', destinataire: 'recipient', destinatario: 'recipient',
  absender: 'shipper', expediteur: 'shipper', remitente: 'shipper',
};
const ROLE_PREFIXES: readonly [string, ColumnRole][] = [['rechnungs', 'buyer'], ['liefer', 'recipient'], ['versand', 'recipient']];
const ADDRESS_WORDS = new Set(['adresse', 'anschrift', 'direccion']);
const LINKING_WORDS = new Set(['de', 'du', 'des', 'd', 'la', 'le', 'l', 'el', 'del', 'der', 'die', 'das', 'von', 'en', 'et', 'y', 'und', 'e', 'o', 'a']);

/** `Código postal (envío)` -> `codigo postal envio`. */
function fold(text: string): string[] {
  return text
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== '');
}

const FOLDED_TABLE = new Map(Object.entries(TABLE).map(([k, v]) => [fold(k).join(' '), v]));

/** The field (or part of a name) a German, French or Spanish header stands for, and whose column it is. */
export function readForeignHeader(header: string): ForeignHeader | undefined {
  let role: ColumnRole = 'neutral';
  const words: string[] = [];
  for (const token of fold(header)) {
    const said = ROLE_WORDS[token];
    if (said !== undefined) {
      role = role === 'neutral' ? said : role;
      continue;
    }
    if (LINKING_WORDS.has(token)) continue;
    // Versandart is a shipping method, not a delivery column: the table's own word comes before a prefix.
    const prefix = FOLDED_TABLE.has(token) ? undefined : ROLE_PREFIXES.find(([p]) => token.startsWith(p) && token.length > p.length);
    if (prefix !== undefined) {
      if (role === 'neutral') role = prefix[1];
      words.push(token.slice(prefix[0].length));
    } else {
      words.push(token);
    }
  }
  // `Lieferadresse Straße`: the address a part belongs to says whose it is, the part says which field.
  const target = FOLDED_TABLE.get(words.join(' ')) ?? FOLDED_TABLE.get(words.filter((w) => !ADDRESS_WORDS.has(w)).join(' '));
  return target === undefined ? undefined : { target, role };
}
