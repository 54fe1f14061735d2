/**
 * Where a workbook's parts are, found as the Open Packaging Conventions (ECMA-376 Part 2) define it:
 * `_rels/.rels` names the package's officeDocument part (the workbook), and the workbook's own
 * relationships part names its worksheets, shared strings and styles.
 *
 * exceljs's streaming reader looks only at the names Excel gives the parts (xl/workbook.xml,
 * xl/worksheets/sheetN.xml...), so to it a valid workbook another program wrote with its parts elsewhere
 * (`wtf/workbook.xml`, or at the zip root) or with Windows separators in its entry names
 * (`xl\workbook.xml`) has no worksheets. The layout planned here gives each zip entry, as
 * the zip parser hands it over, the name exceljs expects for the part it is; a workbook laid out as
 * Excel lays it out keeps every name. As common readers do (calamine, SheetJS), an entry name matches
 * a part name with `\` read as `/`, without a leading `/`, and in any case.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { SaxesParser } from 'saxes';
import type { ZipPart } from './xlsx-size-guard.js';

export interface PackageLayout {
  /** The name exceljs must see for a zip entry (the entry's own name, its separators turned to `/`, when it needs no other). */
  renameOf(entry: string): string;
  /** N of the xl/worksheets/sheetN.xml each worksheet was given, by its relationship id in the workbook (`r:id` of `<sheet>`). */
  readonly sheetNoByRelId: ReadonlyMap<string, string>;
}

interface Relationship {
  id: string;
  /** The last segment of its type URI: officeDocument, worksheet, sharedStrings, styles... (transitional and strict alike). */
  kind: string;
  target: string;
  isExternal: boolean;
}

/** Relationship parts are a few KB; one larger than this is not read out of its turn. */
const MAX_RELS_BYTES = 1024 * 1024;

/** The names exceljs's reader acts on; an entry that is not the part it would be taken for is kept from it. */
const READER_NAMES = /^(?:xl\/(?:workbook\.xml|sharedStrings\.xml|styles\.xml|_rels\/workbook\.xml\.rels)|_rels\/\.rels)$|xl\/worksheets\/(?:_rels\/)?sheet\d+[.]xml/i;

/** The layout of the workbook whose zip lists `parts`, reading its relationship parts from the file; null when they do not tell (exceljs then reads the names as they are). */
export async function readPackageLayout(file: string, parts: readonly ZipPart[]): Promise<PackageLayout | null> {
  const handle = await open(file, 'r');
  try {
    const byName = new Map(parts.map((part) => [part.name, part]));
    return await planPackageLayout(
      parts.map((part) => part.name),
      (entry) => readPart(handle, byName.get(entry)),
    );
  } finally {
    await handle.close();
  }
}

/**
 * The layout of a package whose zip holds the entries `names`; `read(entry)` gives an entry's text (null:
 * unreadable). Null when the relationships do not lead to a workbook with worksheets.
 */
export async function planPackageLayout(names: readonly string[], read: (entry: string) => Promise<string | null>): Promise<PackageLayout | null> {
  const entryByPart = new Map<string, string>();
  for (const name of names) if (!entryByPart.has(partNameOf(name).toLowerCase())) entryByPart.set(partNameOf(name).toLowerCase(), name);
  const entryOf = (part: string): string | undefined => entryByPart.get(part.toLowerCase());
  const relationshipsOf = async (part: string): Promise<Relationship[] | null> => {
    const entry = entryOf(relationshipsPartOf(part));
    const xml = entry === undefined ? null : await read(entry);
    return xml === null ? null : parseRelationships(xml);
  };

  const office = (await relationshipsOf(''))?.find((r) => r.kind === 'officeDocument' && !r.isExternal);
  const named = office ? resolveTarget('', office.target) : undefined;
  const workbook = [named, 'xl/workbook.xml', 'workbook.xml'].find((part) => part !== undefined && entryOf(part) !== undefined);
  if (workbook === undefined) return null;
  const relationships = await relationshipsOf(workbook);
  if (relationships === null) return null;

  const renames = new Map<string, string>();
  const assign = (part: string, name: string): void => {
    const entry = entryOf(part);
    if (entry !== undefined) renames.set(entry, name);
  };
  assign(workbook, 'xl/workbook.xml');
  assign(relationshipsPartOf(workbook), 'xl/_rels/workbook.xml.rels');
  const folder = folderOf(workbook);
  const worksheets: { id: string; part: string }[] = [];
  for (const rel of relationships) {
    if (rel.isExternal) continue;
    const part = resolveTarget(folder, rel.target);
    if (rel.kind === 'worksheet' && entryOf(part) !== undefined) worksheets.push({ id: rel.id, part });
    else if (rel.kind === 'sharedStrings') assign(part, 'xl/sharedStrings.xml');
    else if (rel.kind === 'styles') assign(part, 'xl/styles.xml');
  }
  if (worksheets.length === 0) return null;

  // Each worksheet keeps the N of its own sheetN.xml name when it has one no other took; the others get the next free ones.
  const numbers = new Map<string, number>();
  const taken = new Set<number>();
  for (const sheet of worksheets) {
    const n = Number(/(?:^|\/)sheet(\d+)\.xml$/i.exec(sheet.part)?.[1] ?? NaN);
    if (Number.isSafeInteger(n) && !taken.has(n)) {
      numbers.set(sheet.id, n);
      taken.add(n);
    }
  }
  let next = 1;
  const sheetNoByRelId = new Map<string, string>();
  for (const sheet of worksheets) {
    let n = numbers.get(sheet.id);
    if (n === undefined) {
      while (taken.has(next)) next++;
      n = next;
      taken.add(n);
    }
    sheetNoByRelId.set(sheet.id, String(n));
    assign(sheet.part, `xl/worksheets/sheet${n}.xml`);
    assign(relationshipsPartOf(sheet.part), `xl/worksheets/_rels/sheet${n}.xml.rels`);
  }

  const given = new Set(renames.values());
  return {
    sheetNoByRelId,
    renameOf(entry) {
      const mapped = renames.get(entry);
      if (mapped !== undefined) return mapped;
      const name = partNameOf(entry);
      return given.has(name) || READER_NAMES.test(name) ? `unused/${name}` : name;
    },
  };
}

/** A zip entry's name as a part name: `/` separators, no leading `/`. */
function partNameOf(entry: string): string {
  return entry.replace(/\\/g, '/').replace(/^\/+/, '');
}

/** The relationships part of a part (`xl/workbook.xml` -> `xl/_rels/workbook.xml.rels`); of the package itself for ''. */
function relationshipsPartOf(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

function folderOf(part: string): string {
  return part.slice(0, part.lastIndexOf('/') + 1);
}

/** A relationship's target as a part name: relative to the source part's folder, or to the package root when it starts with `/`. */
function resolveTarget(folder: string, target: string): string {
  let text = target.replace(/\\/g, '/');
  try {
    text = decodeURIComponent(text);
  } catch {
    // A target that is no valid URI escape is taken as written.
  }
  const segments = (text.startsWith('/') ? text : `${folder}${text}`).split('/');
  const resolved: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') resolved.pop();
    else resolved.push(segment);
  }
  return resolved.join('/');
}

/** The relationships of a relationships part; null when it is not well-formed XML. */
export function parseRelationships(xml: string): Relationship[] | null {
  const found: Relationship[] = [];
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    if (tag.name.replace(/^.*:/, '') !== 'Relationship') return;
    const attributes = tag.attributes as Record<string, string>;
    const { Id: id, Type: type, Target: target } = attributes;
    if (id === undefined || type === undefined || target === undefined) return;
    found.push({ id, kind: type.replace(/^.*\//, ''), target, isExternal: attributes.TargetMode === 'External' });
  });
  try {
    parser.write(xml.replace(/^\uFEFF/, '')).close();
  } catch {
    return null;
  }
  return found;
}

/** An entry's text, read from its local header on; null when it cannot be (too large, another compression, damaged). */
async function readPart(handle: FileHandle, part: ZipPart | undefined): Promise<string | null> {
  if (!part || part.offset < 0 || part.unpackedBytes > MAX_RELS_BYTES || part.packedBytes > MAX_RELS_BYTES || (part.method !== 0 && part.method !== 8)) return null;
  const header = Buffer.alloc(30);
  if ((await handle.read(header, 0, 30, part.offset)).bytesRead !== 30 || header.readUInt32LE(0) !== 0x04034b50) return null;
  const start = part.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  const packed = Buffer.alloc(part.packedBytes);
  if ((await handle.read(packed, 0, packed.length, start)).bytesRead !== packed.length) return null;
  try {
    const bytes = part.method === 0 ? packed : inflateRawSync(packed, { maxOutputLength: MAX_RELS_BYTES });
    return new TextDecoder('utf-8').decode(bytes);
  } catch {
    return null;
  }
}
