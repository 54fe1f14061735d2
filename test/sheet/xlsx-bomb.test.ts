import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { InputError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { SHEET_LIMITS } from '../../src/sheet/limits.js';
import { openXlsxSource } from '../../src/sheet/read-xlsx.js';
import { judgeZipParts, readZipParts } from '../../src/sheet/xlsx-size-guard.js';
import { readAll, useTempDir, zipOf, type ZipPartSpec as Part } from './support.js';

const fixture = useTempDir();

/** A minimal workbook: one worksheet of two orders whose text is in xl/sharedStrings.xml, padded with `padding` unused strings. */
function workbook(options: { padding?: number; claimStringsSize?: number } = {}): Buffer {
  const strings = ['customerOrderId', 'name', 'SO-1', 'Mug', 'SO-2', 'Cup'];
  const pad = '<si><t>padding padding padding padding padding padding</t></si>'.repeat(options.padding ?? 0);
  const sharedStrings = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${strings.map((s) => `<si><t>${s}</t></si>`).join('')}${pad}</sst>`;
  const row = (r: number, a: number, b: number) => `<row r="${r}"><c r="A${r}" t="s"><v>${a}</v></c><c r="B${r}" t="s"><v>${b}</v></c></row>`;
  const sheet = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${row(1, 0, 1)}${row(2, 2, 3)}${row(3, 4, 5)}</sheetData></worksheet>`;
  const rel = (id: string, type: string, target: string) => `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
  const text = (name: string, xml: string, claimUnpacked?: number): Part => ({ name, data: Buffer.from(xml, 'utf8'), ...(claimUnpacked !== undefined ? { claimUnpacked } : {}) });
  return zipOf([
    text(
      '[Content_Types].xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    ),
    text('_rels/.rels', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'officeDocument', 'xl/workbook.xml')}</Relationships>`),
    text(
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Orders" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    text('xl/_rels/workbook.xml.rels', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'worksheet', 'worksheets/sheet1.xml')}${rel('rId2', 'sharedStrings', 'sharedStrings.xml')}</Relationships>`),
    text('xl/sharedStrings.xml', sharedStrings, options.claimStringsSize),
    text('xl/worksheets/sheet1.xml', sheet),
  ]);
}

/** ~6.3 MB of shared strings: over the 4 MiB below which no part is judged by its ratio. */
const BOMB_PADDING = 100_000;

async function readError(file: string, zipLimits?: Parameters<typeof openXlsxSource>[1]['zipLimits'], limits = SHEET_LIMITS): Promise<InputError> {
  const source = openXlsxSource(file, { batchSize: 100, limits, ...(zipLimits ? { zipLimits } : {}) });
  try {
    for await (const batch of source.batches) void batch;
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  } finally {
    source.close();
  }
  throw new Error(`${file} was read without an error`);
}

describe('a workbook that unpacks to far more than its size', () => {
  it('reads the same small workbook (the fixture is a real workbook)', async () => {
    const { rows } = await readAll(fixture('small.xlsx', workbook({ padding: 10 })));
    expect(rows.map((r) => r.cells)).toEqual([['SO-1', 'Mug'], ['SO-2', 'Cup']]);
  });

  it('is refused before reading when a part unpacks hundreds of times its packed size, naming the file and the part', async () => {
    const bytes = workbook({ padding: BOMB_PADDING });
    expect(bytes.length).toBeLessThan(100_000);
    const file = fixture('bomb.xlsx', bytes);
    const checked = await checkFile(file, { context: { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.code).toBe('unreadable_file');
    expect(checked.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} cannot be read safely: xl/sharedStrings\\.xml inside it unpacks from \\d+ KB to 6(\\.\\d)? MB \\(\\d+ times`));
    expect(checked.message).toContain('zip bomb');
    expect(checked.message).not.toMatch(/damaged or incomplete workbook/);
  });

  it('is refused over the cap on a whole workbook (the cap injected small)', async () => {
    const file = fixture('large.xlsx', workbook({ padding: 2_000 }));
    const error = await readError(file, { maxUnpackedBytes: 50_000 });
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toMatch(/is too large to read: its parts unpack to \d+ KB, more than the 49 KB this tool reads from one workbook/);
  });

  it('stops inflating when the zip lists false sizes, before the bytes pile up', async () => {
    const file = fixture('lying.xlsx', workbook({ padding: BOMB_PADDING, claimStringsSize: 1_000 }));
    const listed = await readZipParts(file);
    expect(judgeZipParts(file, listed.parts!)).toBeNull();
    const error = await readError(file);
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toMatch(/cannot be read safely: its parts unpack to more than \d+(\.\d)? MB \(xl\/sharedStrings\.xml was being read\)/);
  });
});

describe('a shared-strings table past its own limit', () => {
  it('is refused while inflating when the listing understates it, naming the part and the limit', async () => {
    // 2,000 padding strings: about 130 KB of shared strings, listed as 1 KB, far below any ratio worth judging.
    const file = fixture('strings-lying.xlsx', workbook({ padding: 2_000, claimStringsSize: 1_000 }));
    const error = await readError(file, undefined, { ...SHEET_LIMITS, maxSharedStringsBytes: 100_000 });
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('strings-lying.xlsx: its table of shared texts (xl/sharedStrings.xml) unpacks to more than the 100,000 bytes this tool keeps in memory');
  });
});

describe('readZipParts', () => {
  it('lists the parts with their packed and unpacked sizes', async () => {
    const file = fixture('listed.xlsx', workbook({ padding: 10 }));
    const { parts } = await readZipParts(file);
    const strings = parts!.find((p) => p.name === 'xl/sharedStrings.xml')!;
    expect(parts!.map((p) => p.name)).toContain('xl/worksheets/sheet1.xml');
    expect(strings.unpackedBytes).toBeGreaterThan(strings.packedBytes);
  });
});
