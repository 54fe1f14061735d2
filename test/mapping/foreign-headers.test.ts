/**
 * German, French and Spanish shop exports: their common headers are guessed through a small table, under
 * the same role rules as English ones (a billing column is never the recipient's), and a given name
 * beside a family name becomes fullName joined.
 */
import { describe, expect, it } from 'vitest';
import { suggestProfile } from '../../src/mapping/suggest.js';
import type { Field } from '../../src/sheet/columns.js';

const fieldsOf = (headers: string[]) => {
  const draft = suggestProfile({ headers });
  return { draft, by: Object.fromEntries(draft.guesses.filter((g) => g.confidence !== 'ambiguous').map((g) => [g.field, g.header])) as Partial<Record<Field, string>> };
};

describe('German, French and Spanish headers', () => {
  it('reads a German shop export, its billing columns left to the buyer', () => {
    const { draft, by } = fieldsOf(['Bestellnummer', 'Bestelldatum', 'Rechnungs-Vorname', 'Rechnungs-Nachname', 'Rechnungsstraße', 'Vorname (Lieferung)', 'Nachname (Lieferung)', 'Lieferadresse Straße', 'PLZ', 'Ort', 'Land', 'Bundesland', 'Telefon', 'Artikelnummer', 'Artikelname', 'Menge', 'Einzelpreis', 'MwSt']);
    expect(by).toMatchObject({ customerOrderId: 'Bestellnummer', orderDate: 'Bestelldatum', addressLine1: 'Lieferadresse Straße', postalOrZipCode: 'PLZ', city: 'Ort', countryCode: 'Land', provinceOrState: 'Bundesland', phone: 'Telefon', productId: 'Artikelnummer', name: 'Artikelname', quantity: 'Menge', unitPrice: 'Einzelpreis', salesTax: 'MwSt' });
    expect(draft.profile.fields.fullName).toEqual({ join: ['Vorname (Lieferung)', 'Nachname (Lieferung)'] });
    expect(draft.missing).toEqual([]);
    expect(Object.values(by)).not.toContain('Rechnungsstraße');
  });

  it('never takes a billing street for the recipient\'s, even when it is the only street', () => {
    const { by, draft } = fieldsOf(['Bestellnummer', 'Rechnungs-Vorname', 'Rechnungs-Nachname', 'Rechnungsstrasse', 'Strasse']);
    expect(by.addressLine1).toBe('Strasse');
    expect(draft.profile.fields.fullName).toBeUndefined();
    expect(fieldsOf(['Adresse de facturation', 'Nombre de facturación', 'Dirección de facturación']).by).toEqual({});
  });

  it('reads a French export, the delivery columns the recipient\'s', () => {
    const { draft, by } = fieldsOf(['Numéro de commande', 'Date de commande', 'Prénom (livraison)', 'Nom (livraison)', 'Adresse de livraison', 'Code postal', 'Ville', 'Région', 'Pays', 'Téléphone', 'Référence', 'Nom du produit', 'Quantité', 'Prix unitaire', 'TVA']);
    expect(by).toMatchObject({ customerOrderId: 'Numéro de commande', orderDate: 'Date de commande', addressLine1: 'Adresse de livraison', postalOrZipCode: 'Code postal', city: 'Ville', countryCode: 'Pays', phone: 'Téléphone', productId: 'Référence', name: 'Nom du produit', quantity: 'Quantité', unitPrice: 'Prix unitaire', salesTax: 'TVA' });
    expect(draft.profile.fields.fullName).toEqual({ join: ['Prénom (livraison)', 'Nom (livraison)'] });
    expect(draft.missing).toEqual([]);
  });

  it('reads a Spanish export; Nombre alone is a guess at the whole name', () => {
    const { draft, by } = fieldsOf(['Número de pedido', 'Fecha', 'Nombre', 'Apellidos', 'Dirección', 'Código postal', 'Ciudad', 'Provincia', 'País', 'Teléfono', 'SKU', 'Producto', 'Cantidad', 'Precio unitario', 'IVA']);
    expect(by).toMatchObject({ customerOrderId: 'Número de pedido', orderDate: 'Fecha', addressLine1: 'Dirección', postalOrZipCode: 'Código postal', city: 'Ciudad', provinceOrState: 'Provincia', countryCode: 'País', phone: 'Teléfono', productId: 'SKU', name: 'Producto', quantity: 'Cantidad', unitPrice: 'Precio unitario', salesTax: 'IVA' });
    expect(draft.profile.fields.fullName).toEqual({ join: ['Nombre', 'Apellidos'] });
    const alone = suggestProfile({ headers: ['Número de pedido', 'Nombre', 'Dirección'] }).guesses.find((g) => g.field === 'fullName');
    expect(alone).toMatchObject({ header: 'Nombre', confidence: 'weak' });
  });
});
