import { describe, expect, it } from 'vitest';
import { detectDelimiter } from '../../src/sheet/csv-records.js';
import { isBlankRow, toHeaderText } from '../../src/sheet/row-source.js';
import { createChunkDecoder, decodeWindows1252, countIncompleteUtf8Tail } from '../../src/sheet/text-decode.js';
import { isDateFormat } from '../../src/sheet/xlsx-cells.js';
import { fixSheetXml } from '../../src/sheet/xlsx-stream-fixes.js';
import { retypeErrorCells } from '../../src/sheet/xlsx-xml-fixes.js';

function decodeChunks(chunks: number[][]): { text: string; encoding: string } {
  const decoder = createChunkDecoder('utf-8');
  const text = chunks.map((c) => decoder.decode(Buffer.from(c))).join('') + decoder.end();
  return { text, encoding: decoder.encoding };
}

describe('decoding text chunk by chunk', () => {
  it('keeps a UTF-8 character whole when a chunk boundary cuts it', () => {
    const bytes = [...Buffer.from('a€b')];
    expect(decodeChunks([bytes.slice(0, 2), bytes.slice(2)])).toEqual({ text: 'a€b', encoding: 'utf-8' });
  });

  it('drops the UTF-8 byte-order mark only at the start of the file', () => {
    const bom = [0xef, 0xbb, 0xbf];
    expect(decodeChunks([[...bom, 0x61], [...bom, 0x62]]).text).toBe('a\ufeffb');
  });

  it('reads the whole file as windows-1252 when the first bad byte follows only ASCII', () => {
    expect(decodeChunks([[0x61, 0x62], [0x63, 0xe9, 0x80]])).toEqual({ text: 'abcé€', encoding: 'windows-1252' });
  });

  it('reads the line holding a bad byte as windows-1252 and the UTF-8 lines before it as UTF-8', () => {
    const { text, encoding } = decodeChunks([[...Buffer.from('é\n'), 0xc3], [0xa9, 0x20, 0xff]]);
    expect(text).toBe('é\nÃ© ÿ');
    expect(encoding).toBe('utf-8');
  });

  it('maps the windows-1252 bytes 0x80-0x9F that Node decodes as latin1', () => {
    expect(decodeWindows1252(Buffer.from([0x80, 0x85, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x99, 0x9f]))).toBe('€…‘’“”–—™Ÿ');
  });

  it('finds an incomplete UTF-8 sequence at the end of a chunk', () => {
    expect(countIncompleteUtf8Tail(Buffer.from([0x61, 0xe2, 0x82]))).toBe(2);
    expect(countIncompleteUtf8Tail(Buffer.from([0x61, 0xe2, 0x82, 0xac]))).toBe(0);
    expect(countIncompleteUtf8Tail(Buffer.from([0x61, 0xf0]))).toBe(1);
    expect(countIncompleteUtf8Tail(Buffer.from('abc'))).toBe(0);
  });
});

describe('detecting the delimiter from the header line', () => {
  it('picks the most frequent of comma, semicolon and tab outside quotes', () => {
    expect(detectDelimiter('a,b,c\n1;2;3;4;5')).toBe(',');
    expect(detectDelimiter('a;b;"c,d,e"\n')).toBe(';');
    expect(detectDelimiter('a\tb\tc, d\r\n')).toBe('\t');
  });

  it('skips leading blank and delimiter-only lines and defaults to comma', () => {
    expect(detectDelimiter('\r\n;;;\r\n  \r\na;b\r\n')).toBe(';');
    expect(detectDelimiter('customerOrderId\n')).toBe(',');
  });
});

describe('row and header text', () => {
  it('counts a row as blank when every cell is empty or only spaces', () => {
    expect(isBlankRow(['', '  ', '\u00a0', null, '\ufeff'])).toBe(true);
    expect(isBlankRow(['', ' x '])).toBe(false);
    expect(isBlankRow([null, 0])).toBe(false);
    expect(isBlankRow([false])).toBe(false);
  });

  it('trims header text and collapses inner spaces', () => {
    expect(toHeaderText('\ufeff Full\u00a0\u00a0Name\t')).toBe('Full Name');
    expect(toHeaderText(2024)).toBe('2024');
    expect(toHeaderText(null)).toBe('');
  });
});

describe('worksheet XML fixes', () => {
  it('retypes error cells as strings and leaves other cells alone', () => {
    expect(retypeErrorCells('<c r="E2" s="1" t="e"><f>NA()</f><v>#N/A</v></c><c r="F2" t="s"><v>0</v></c>'))
      .toBe('<c r="E2" s="1" t="str"><f>NA()</f><v>#N/A</v></c><c r="F2" t="s"><v>0</v></c>');
    expect(retypeErrorCells("<c r='A1' t='e'><v>#REF!</v></c>")).toBe('<c r=\'A1\' t="str"><v>#REF!</v></c>');
  });

  it('never splits a tag or a character across the chunks it hands on', async () => {
    const xml = Buffer.from('<row r="2"><c r="A2" t="e"><v>#N/A</v></c><c r="B2" t="inlineStr"><is><t>Zoë</t></is></c></row>');
    const cut1 = xml.indexOf('t="e"') + 2;
    const cut2 = xml.indexOf('ë') + 1;
    async function* chunks(): AsyncGenerator<Buffer> {
      yield xml.subarray(0, cut1);
      yield xml.subarray(cut1, cut2);
      yield xml.subarray(cut2);
    }
    const out: string[] = [];
    for await (const text of fixSheetXml(chunks())) out.push(text);
    expect(out.join('')).toBe(xml.toString().replace('t="e"', 't="str"'));
    for (const text of out) expect(text.lastIndexOf('<')).toBeLessThan(Math.max(text.lastIndexOf('>'), 0) + 1);
  });

  it('tells date formats from number formats as exceljs does', () => {
    expect(isDateFormat('yyyy-mm-dd hh:mm')).toBe(true);
    expect(isDateFormat('m/d/yy')).toBe(true);
    expect(isDateFormat('[$-409]mmmm d, yyyy')).toBe(true);
    expect(isDateFormat('#,##0.00')).toBe(false);
    expect(isDateFormat('"$"#,##0.00')).toBe(false);
    expect(isDateFormat('[Red]0.00')).toBe(false);
  });
});
