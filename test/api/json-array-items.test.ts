/** The items of a JSON answer's list, found as its bytes arrive, however the bytes are cut. */
import { describe, expect, it } from 'vitest';
import { JsonArrayItems, JsonShapeError } from '../../src/api/json-array-items.js';

/** Feeds `text` cut every `step` bytes (1: byte by byte, so every item and string straddles chunks). */
function itemsOf(text: string, step: number, field = 'data'): unknown[] {
  const items: unknown[] = [];
  const scanner = new JsonArrayItems(field, (item, index) => {
    expect(index).toBe(items.length);
    items.push(item);
  });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += step) scanner.write(bytes.subarray(i, i + step));
  scanner.end();
  return items;
}

const tricky = [
  { orderDetails: { customerOrderId: 'A-1', name: 'brace } and bracket ] in "quotes"', lines: [{ q: 1 }, { q: [2, [3]] }] } },
  { orderDetails: { customerOrderId: 'Zoë 東京 🚚', note: 'a backslash \\ then a quote \\" and \\\\' } },
  [1, 2, { deep: { deeper: {} } }],
  {},
];

describe('JsonArrayItems', () => {
  it('hands out each item of the field, parsed, whatever the chunks', () => {
    const text = JSON.stringify({ requestId: 'data', pagination: { data: [{ not: 'this' }] }, data: tricky, after: { data: [9] } }, null, 2);
    for (const step of [1, 2, 3, 7, 64, text.length]) expect(itemsOf(text, step)).toEqual(tricky);
  });

  it('reads an empty list; a key written with escapes is another key (the plain "data" is the list)', () => {
    expect(itemsOf('{"data":[]}', 1)).toEqual([]);
    expect(itemsOf('{"d\\u0061ta":[{"a":1}],"data":[{"b":2}]}', 1)).toEqual([{ b: 2 }]);
  });

  it('refuses an answer cut short, with no such list, or whose list holds other than records', () => {
    const refused = (text: string) => () => itemsOf(text, 5);
    expect(refused('{"data":[{"a":1},{"b":')).toThrow(JsonShapeError);
    expect(refused('{"data":[{"a":1}]')).toThrow('cut short');
    expect(refused('{"items":[{"a":1}]}')).toThrow('no "data" list');
    expect(refused('{"data":{"a":1}}')).toThrow('"data" is not a list');
    expect(refused('{"data":[{"a":1},42]}')).toThrow('data[1] is not an object');
    expect(refused('[{"a":1}]')).toThrow('not a JSON object');
    expect(refused('<html>Bad gateway</html>')).toThrow(JsonShapeError);
  });

  it('lets JSON.parse judge an item that is not JSON', () => {
    expect(() => itemsOf('{"data":[{"a":1,}]}', 3)).toThrow(SyntaxError);
  });
});
