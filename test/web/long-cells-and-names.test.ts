/**
 * What the verdict page shows of a sheet with huge cells (kept short, the result files complete),
 * and how a file that is no sheet by its name is refused on the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { MAX_CELL_CHARS, shortenCellText } from '../../src/web/verdict.js';
import { uploadForm, useAppWithSession } from './support.js';

const HEADER = 'customerOrderId,marketplaceOrderId,orderDate,sourceOfSale,salesTax,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,Notes';
const ROWS = 30;
/** Within Excel's 32,767 characters a cell, so the result workbook holds it whole. */
const NOTE = 'n'.repeat(20_000);

function sheetWithLongNotes(): string {
  const lines = [HEADER];
  for (let i = 1; i <= ROWS; i++) {
    lines.push(`SO-${i},,2026-11-19,OtherMarketplace,0,Ann Lee,1 Main St,Boston,MA,02134,US,6175550100,PRD-1001,1,Mug,1,9.99,${i}${NOTE}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('a sheet with 20 KB cells', () => {
  const { web, session } = useAppWithSession();

  const upload = async (fileName: string, content: string | Buffer) => {
    const response = await request(`${web.app.url}/upload`, {
      method: 'POST',
      body: uploadForm({ csrf: session.csrf, fileName, content }),
      headers: { cookie: session.cookie, origin: web.app.url },
    });
    await response.body.text();
    expect(response.statusCode).toBe(303);
    return response.headers.location as string;
  };
  const get = async (path: string) => {
    const response = await request(`${web.app.url}${path}`, { headers: { cookie: session.cookie } });
    return { status: response.statusCode, body: Buffer.from(await response.body.arrayBuffer()) };
  };

  it('shows each cell cut short with an ellipsis, while the result workbook keeps every character', async () => {
    const location = await upload('long-notes.csv', sheetWithLongNotes());
    const page = (await get(location)).body.toString('utf8');
    expect(page.length).toBeLessThan(200_000);
    expect(page).toContain(`1${'n'.repeat(MAX_CELL_CHARS - 1)}… (20,001 characters in all)`);
    expect(page).not.toContain('n'.repeat(MAX_CELL_CHARS + 1));
    const verdictJson = readFileSync(join(web.workDir, 'uploads', location.split('/').pop()!, 'verdict.json'));
    expect(verdictJson.length).toBeLessThan(200_000);

    const result = await get(`${location}/result`);
    expect(result.status).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(result.body as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const notesColumn = (sheet.getRow(1).values as unknown[]).indexOf('Notes');
    expect(String(sheet.getRow(2).getCell(notesColumn).value)).toBe(`1${NOTE}`);
  });

  it('refuses a 5-byte notes.pdf as not an order sheet, in words for the web page', async () => {
    const page = (await get(await upload('notes.pdf', 'hello'))).body.toString('utf8');
    expect(page).toContain('This file could not be used.');
    expect(page).toContain('notes.pdf is not an order sheet: its name ends in .pdf (a PDF document)');
    expect(page).not.toMatch(/give the path|reads as text/i);
  });
});

describe('shortenCellText', () => {
  it('keeps short text and never cuts a character in two', () => {
    expect(shortenCellText('abc', 5)).toBe('abc');
    expect(shortenCellText('abcd😀xyz', 5)).toMatch(/^abcd…/);
  });
});
