/**
 * Valid workbooks that programs other than Excel write, each layout recreated here: the workbook part where
 * `_rels/.rels` says it is (not xl/workbook.xml), zip entry names with backslashes, every part at the zip
 * root, and SpreadsheetGear's pretty-printed XML whose rows and cells leave out their `r` references. Each
 * must read as Excel and LibreOffice read it, never as "no worksheets" or "damaged".
 */
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { silentLogger } from '../../src/log.js';
import { planPackageLayout } from '../../src/sheet/xlsx-package.js';
import { CellRefs, joinInlineStrings, SharedStringsFilter } from '../../src/sheet/xlsx-xml-fixes.js';
import { readAll, readError, useTempDir, zipOf, type ZipPartSpec } from './support.js';

const fixture = useTempDir();
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

const HEADER = ['customerOrderId', 'name', 'quantity'];
const ORDERS: (string | number)[][] = [['SO-1', 'Mug', 2], ['SO-2', 'Cup', 1]];
/** What every fixture below must read as: the header, then the orders with their row numbers. */
const EXPECTED = { headers: HEADER, rows: ORDERS.map((cells, i) => ({ rowNumber: i + 2, cells })) };

const part = (name: string, xml: string): ZipPartSpec => ({ name, data: Buffer.from(xml, 'utf8') });
const rels = (list: [id: string, type: string, target: string][]) =>
  `${DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list
    .map(([id, type, target]) => `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`)
    .join('')}</Relationships>`;
const workbookXml = (sheets: { name: string; rId: string; state?: string }[]) =>
  `${DECLARATION}<workbook xmlns="${MAIN}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${sheets
    .map((s, i) => `<sheet name="${s.name}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="${s.rId}"/>`)
    .join('')}</sheets></workbook>`;
const CONTENT_TYPES = `${DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`;

/** Rows of shared-string and number cells, with their references, as Excel writes them; `strings` collects the texts. */
function sheetXml(rows: (string | number)[][], strings: string[]): string {
  const cell = (value: string | number, col: number, row: number) => {
    const ref = `${String.fromCharCode(65 + col)}${row}`;
    if (typeof value === 'number') return `<c r="${ref}"><v>${value}</v></c>`;
    strings.push(value);
    return `<c r="${ref}" t="s"><v>${strings.length - 1}</v></c>`;
  };
  return `${DECLARATION}<worksheet xmlns="${MAIN}"><sheetData>${rows.map((cells, r) => `<row r="${r + 1}">${cells.map((v, c) => cell(v, c, r + 1)).join('')}</row>`).join('')}</sheetData></worksheet>`;
}

const sharedStringsXml = (strings: string[]) => `${DECLARATION}<sst xmlns="${MAIN}">${strings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`;

function expectOrders(read: Awaited<ReturnType<typeof readAll>>, sheetName?: string): void {
  expect(read.sheet.headers).toEqual(EXPECTED.headers);
  expect(read.rows).toEqual(EXPECTED.rows);
  if (sheetName !== undefined) expect(read.sheet.sheetName).toBe(sheetName);
}

describe('a workbook whose parts are where its relationships say, not where Excel puts them', () => {
  /** SheetJS's wtf_path layout: the workbook at wtf/workbook.xml, a hidden sheet before the orders, the relationships stored last. */
  function wtfLayout(): Buffer {
    const strings: string[] = [];
    const orders = sheetXml([HEADER, ...ORDERS], strings);
    const notes = sheetXml([['internal notes']], strings);
    return zipOf([
      part('docProps/core.xml', `${DECLARATION}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"/>`),
      part('wtf/workbook.xml', workbookXml([{ name: 'Notes', rId: 'rId2', state: 'hidden' }, { name: 'Orders', rId: 'rId1' }])),
      part('wtf/worksheets/sheet1.xml', orders),
      part('wtf/worksheets/sheet2.xml', notes),
      part('wtf/sharedStrings.xml', sharedStringsXml(strings)),
      part('[Content_Types].xml', CONTENT_TYPES),
      part('_rels/.rels', rels([['rId1', 'officeDocument', 'wtf/workbook.xml']])),
      part('wtf/_rels/workbook.xml.rels', rels([['rId1', 'worksheet', 'worksheets/sheet1.xml'], ['rId2', 'worksheet', 'worksheets/sheet2.xml'], ['rId3', 'sharedStrings', 'sharedStrings.xml']])),
    ]);
  }

  it('finds the workbook through _rels/.rels and reads its first visible worksheet', async () => {
    expectOrders(await readAll(fixture('wtf-path.xlsx', wtfLayout())), 'Orders');
  });

  it('reads the worksheet named with --sheet, a hidden one too', async () => {
    // The notes have no order below their first line: the error says which worksheet was read, and the other one.
    const error = await readError(fixture('wtf-path-notes.xlsx', wtfLayout()), { sheet: 'Notes' });
    expect(error.message).toMatch(/\(worksheet "Notes"\) has a header row but no orders below it.*other worksheet is "Orders"/);
  });

  it('checks the orders of such a workbook like any other', async () => {
    const checked = await checkFile(fixture('wtf-path-check.xlsx', wtfLayout()), { context: { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger });
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(checked.sheet.orders.map((o) => o.customerOrderId)).toEqual(['SO-1', 'SO-2']);
  });
});

describe('a workbook whose zip entry names use backslashes (xl\\workbook.xml)', () => {
  it('reads them as the part names they stand for', async () => {
    const strings: string[] = [];
    const sheet = sheetXml([HEADER, ...ORDERS], strings);
    const file = fixture('backslashes.xlsx', zipOf([
      part('[Content_Types].xml', CONTENT_TYPES),
      part('_rels\\.rels', rels([['rId1', 'officeDocument', 'xl/workbook.xml']])),
      part('xl\\workbook.xml', workbookXml([{ name: 'Orders', rId: 'rId26' }])),
      part('xl\\_rels\\workbook.xml.rels', rels([['rId26', 'worksheet', 'worksheets/sheet26.xml'], ['rId37', 'sharedStrings', 'sharedStrings.xml']])),
      part('xl\\sharedStrings.xml', sharedStringsXml(strings)),
      part('xl\\worksheets\\sheet26.xml', sheet),
    ]));
    expectOrders(await readAll(file), 'Orders');
  });
});

describe('a workbook with every part at the zip root', () => {
  it('reads its worksheet, its inline strings whole (runs joined) and its cells without references', async () => {
    // calamine's minimal package: no xl/ folder, no shared strings; pretty-printed, as that writer does.
    const inline = (text: string) => `<c t="inlineStr"><is><t xml:space="preserve">${text}</t>\n</is>\n</c>\n`;
    const header = `<c t="inlineStr"><is><t xml:space="preserve">customer</t>\n<r>\n<t xml:space="preserve">OrderId</t>\n</r>\n</is>\n</c>\n${inline('name')}${inline('quantity')}`;
    const row = (cells: (string | number)[]) => cells.map((v) => (typeof v === 'number' ? `<c><v>${v}</v></c>\n` : inline(v))).join('');
    const sheet = `${DECLARATION}\n<worksheet xmlns="${MAIN}">\n<sheetData>\n<row r="1">\n${header}</row>\n${ORDERS.map((o, i) => `<row r="${i + 2}">\n${row(o)}</row>\n`).join('')}</sheetData>\n</worksheet>`;
    const file = fixture('at-root.xlsx', zipOf([
      part('sheet1.xml', sheet),
      part('workbook.xml', workbookXml([{ name: 'Sheet1', rId: 'rId1' }])),
      part('_rels/workbook.xml.rels', rels([['rId1', 'worksheet', 'sheet1.xml']])),
      part('_rels/.rels', rels([['rId1', 'officeDocument', 'workbook.xml']])),
      part('[Content_Types].xml', CONTENT_TYPES),
    ]));
    expectOrders(await readAll(file), 'Sheet1');
  });
});

describe('a SpreadsheetGear workbook', () => {
  it('reads rows and cells without r references, indented shared strings and folder entries, as Excel does', async () => {
    const bom = '\uFEFF';
    const strings = [...HEADER, 'SO-1', 'Mug', 'SO-2', 'Cup'];
    const sst = `${bom}<?xml version="1.0" encoding="utf-8"?>\n<sst xmlns="${MAIN}">\n${strings.map((s) => `    <si>\n        <t>${s}</t>\n    </si>\n`).join('')}</sst>`;
    const cell = (value: string | number) => (typeof value === 'number' ? `            <c>\n                <v>${value}</v>\n            </c>\n` : `            <c t="s">\n                <v>${strings.indexOf(value)}</v>\n            </c>\n`);
    // Its rows end in empty styled cells, and a blank row sits between the orders and a total below.
    const row = (cells: (string | number)[]) => `        <row>\n${cells.map(cell).join('')}            <c s="9"/>\n        </row>\n`;
    const sheet = `${bom}<?xml version="1.0" encoding="utf-8"?>\n<worksheet xmlns="${MAIN}">\n    <sheetData>\n${[HEADER, ...ORDERS].map(row).join('')}    </sheetData>\n</worksheet>`;
    const folder = (name: string): ZipPartSpec => ({ name, data: Buffer.alloc(0) });
    const file = fixture('spreadsheetgear.xlsx', zipOf([
      folder('xl/'),
      part('xl/workbook.xml', workbookXml([{ name: 'Orders', rId: 'rId1' }])),
      folder('xl/_rels/'),
      part('xl/_rels/workbook.xml.rels', rels([['rId1', 'worksheet', 'worksheets/sheet1.xml'], ['rId2', 'sharedStrings', 'sharedStrings.xml']])),
      folder('xl/worksheets/'),
      part('xl/worksheets/sheet1.xml', sheet),
      part('xl/sharedStrings.xml', sst),
      folder('_rels/'),
      part('_rels/.rels', rels([['rId1', 'officeDocument', 'xl/workbook.xml']])),
      part('[Content_Types].xml', CONTENT_TYPES),
    ]));
    const read = await readAll(file);
    expect(read.sheet.headers).toEqual(HEADER);
    expect(read.rows.map((r) => ({ rowNumber: r.rowNumber, cells: r.cells.slice(0, 3) }))).toEqual(EXPECTED.rows);
  });
});

describe('a failure of the workbook reader itself', () => {
  afterEach(() => vi.restoreAllMocks());
  const file = () => fixture('plain.xlsx', zipOf([
    part('[Content_Types].xml', CONTENT_TYPES),
    part('_rels/.rels', rels([['rId1', 'officeDocument', 'xl/workbook.xml']])),
    part('xl/workbook.xml', workbookXml([{ name: 'Orders', rId: 'rId1' }])),
    part('xl/_rels/workbook.xml.rels', rels([['rId1', 'worksheet', 'worksheets/sheet1.xml'], ['rId2', 'styles', 'styles.xml']])),
    part('xl/styles.xml', `${DECLARATION}<styleSheet xmlns="${MAIN}"/>`),
    part('xl/worksheets/sheet1.xml', sheetXml([[1, 2]], [])),
  ]));
  type Internals = { _parseStyles: () => Promise<void> };

  it('is said to be the reader\'s, not the file\'s, when it is a programming error (a TypeError)', async () => {
    const prototype = ExcelJS.stream.xlsx.WorkbookReader.prototype as unknown as Internals;
    vi.spyOn(prototype, '_parseStyles').mockRejectedValue(new TypeError("Cannot read properties of undefined (reading 'length')"));
    const error = await readError(file());
    expect(error.code).toBe('unreadable_file');
    expect(error.message).not.toMatch(/damaged/);
    expect(error.message).toContain('could not be read: the workbook reader failed on something in it (TypeError: Cannot read properties of undefined');
    expect(error.message).toContain('The file itself may be fine');
  });

  it('is a damaged workbook when the reader finds the file broken (an error that is no programming error)', async () => {
    const prototype = ExcelJS.stream.xlsx.WorkbookReader.prototype as unknown as Internals;
    vi.spyOn(prototype, '_parseStyles').mockRejectedValue(new Error('Unexpected end of XML'));
    expect((await readError(file())).message).toMatch(/is a damaged or incomplete workbook/);
  });
});

describe('planPackageLayout', () => {
  const plan = (entries: Record<string, string>) => planPackageLayout(Object.keys(entries), async (name) => entries[name] ?? null);

  it('keeps every name of a workbook laid out as Excel lays it out', async () => {
    const layout = await plan({
      '_rels/.rels': rels([['rId1', 'officeDocument', 'xl/workbook.xml']]),
      'xl/workbook.xml': '',
      'xl/_rels/workbook.xml.rels': rels([['rId1', 'worksheet', 'worksheets/sheet1.xml'], ['rId2', 'worksheet', '/xl/worksheets/sheet3.xml'], ['rId3', 'styles', 'styles.xml']]),
      'xl/worksheets/sheet1.xml': '',
      'xl/worksheets/sheet3.xml': '',
      'xl/styles.xml': '',
      'xl/worksheets/_rels/sheet1.xml.rels': '',
    });
    for (const name of ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/worksheets/sheet1.xml', 'xl/worksheets/sheet3.xml', 'xl/styles.xml', 'xl/worksheets/_rels/sheet1.xml.rels', 'docProps/app.xml']) {
      expect(layout!.renameOf(name)).toBe(name);
    }
    expect([...layout!.sheetNoByRelId]).toEqual([['rId1', '1'], ['rId2', '3']]);
  });

  it('numbers worksheets of other names, resolves ../ targets and ignores case, and keeps stray copies from the reader', async () => {
    const layout = await plan({
      '_rels/.rels': rels([['rId1', 'officeDocument', '/Book/Main.xml']]),
      'book/main.xml': '',
      'Book/_rels/Main.xml.rels': rels([['rA', 'worksheet', 'data/orders.xml'], ['rB', 'worksheet', '../extra/sheet1.xml'], ['rC', 'sharedStrings', './text.xml']]),
      'book/data/orders.xml': '',
      'extra/sheet1.xml': '',
      'book/text.xml': '',
      'xl/worksheets/sheet2.xml': '',
    });
    expect(layout!.renameOf('book/main.xml')).toBe('xl/workbook.xml');
    expect(layout!.renameOf('Book/_rels/Main.xml.rels')).toBe('xl/_rels/workbook.xml.rels');
    expect(layout!.renameOf('extra/sheet1.xml')).toBe('xl/worksheets/sheet1.xml');
    expect(layout!.renameOf('book/data/orders.xml')).toBe('xl/worksheets/sheet2.xml');
    expect(layout!.renameOf('book/text.xml')).toBe('xl/sharedStrings.xml');
    // Not a part of this workbook: never taken for one.
    expect(layout!.renameOf('xl/worksheets/sheet2.xml')).toBe('unused/xl/worksheets/sheet2.xml');
    expect([...layout!.sheetNoByRelId]).toEqual([['rA', '2'], ['rB', '1']]);
  });

  it('leaves the names alone when the relationships do not lead to a workbook with worksheets', async () => {
    expect(await plan({ 'xl/workbook.xml': '', 'xl/worksheets/sheet1.xml': '' })).toBeNull();
    expect(await plan({ '_rels/.rels': '<not xml', 'xl/workbook.xml': '', 'xl/_rels/workbook.xml.rels': rels([]) })).toBeNull();
  });
});

describe('the XML fixes', () => {
  it('writes in the r of rows and cells that leave it out, following those that have one, across pieces of text', () => {
    const refs = new CellRefs();
    const pieces = ['<row><c t="s"><v>0</v></c><c/>', '<c r="E1"/><c><v>2</v></c></row><row r="7" spans="1:2">', '<c s="1"/></row><row/>'];
    expect(pieces.map((p) => refs.fill(p)).join('')).toBe(
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"/><c r="E1"/><c r="F1"><v>2</v></c></row><row r="7" spans="1:2"><c r="A7" s="1"/></row><row r="8"/>',
    );
    expect(refs.fill('<cols><col min="1"/></cols>')).toBe('<cols><col min="1"/></cols>');
  });

  it('keeps only the text of <t> elements in a shared string, phonetic guides left out', () => {
    const filter = new SharedStringsFilter();
    const xml = '<si>\n  <t>漢字</t>\n  <rPh sb="0" eb="2"><t>カンジ</t></rPh>\n  <phoneticPr fontId="1"/>\n</si>\n<si><r><t xml:space="preserve">a </t></r>\n<r><t>b</t></r></si>';
    // Pieces end between tags or inside a text, never inside a tag (wholeTags).
    const cut = xml.indexOf('字');
    expect(filter.pass(xml.slice(0, cut)) + filter.pass(xml.slice(cut))).toBe('<si><t>漢字</t><phoneticPr fontId="1"/></si><si><r><t xml:space="preserve">a </t></r><r><t>b</t></r></si>');
  });

  it('joins the runs of an inline string into one text', () => {
    expect(joinInlineStrings('<c t="inlineStr"><is><t>A</t>\n<r><rPr><b/></rPr><t xml:space="preserve"> B</t></r><rPh><t>x</t></rPh></is></c>')).toBe(
      '<c t="inlineStr"><is><t xml:space="preserve">A B</t></is></c>',
    );
  });
});
