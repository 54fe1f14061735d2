/**
 * The items of one array of a JSON answer, handed out one by one as the answer's bytes arrive: list
 * orders (api-spec.md 4.4) has no paging, and its answer grows with the orders (about 600 bytes each),
 * so it is never held whole. The bytes are only scanned for where each item of the top-level
 * `"<field>": [...]` starts and ends (strings and nesting followed, nothing else decoded); each item is
 * then read by JSON.parse, which checks it. A streaming JSON library that tokenizes every byte in
 * JavaScript costs 4 to 17 times JSON.parse on such an answer (bench: reconcile's list-orders read);
 * this costs about 1.5 times.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const SPACE = 0x20;

/** What is wrong with an answer that is not the object with an array field expected. */
export class JsonShapeError extends Error {
  override readonly name = 'JsonShapeError';
}

type Where = 'before' | 'object' | 'items' | 'after';

/**
 * Feed it the answer's chunks in order (`write`), then `end()`. `onItem` gets each item of the
 * top-level field's array, parsed, with its index. Items must be objects or arrays (an answer's records
 * are); anything else, or text that is not JSON, throws JsonShapeError (or JSON.parse's SyntaxError).
 */
export class JsonArrayItems {
  private where: Where = 'before';
  private depth = 0;
  private isInString = false;
  private isEscaped = false;
  /** Bytes of the top-level key being read (depth 1), to know when it is `field`. */
  private key: number[] | null = null;
  private lastKey = '';
  /** Parts of the item being read; null between items. */
  private item: Buffer[] | null = null;
  private count = 0;
  private hasField = false;

  constructor(
    private readonly field: string,
    private readonly onItem: (item: unknown, index: number) => void,
  ) {}

  get items(): number {
    return this.count;
  }

  write(chunk: Uint8Array): void {
    // The state in locals while the bytes are scanned: this loop sees every byte of the answer.
    let { depth, isInString, isEscaped } = this;
    let from = this.item ? 0 : -1;
    const save = () => {
      this.depth = depth;
      this.isInString = isInString;
      this.isEscaped = isEscaped;
    };
    for (let i = 0; i < chunk.length; i++) {
      if (isInString) {
        // Most of an answer is inside strings: jump from quote to quote, natively, instead of byte by byte.
        let start = i;
        if (isEscaped) {
          isEscaped = false;
          start = ++i;
        }
        const close = closingQuote(chunk, start);
        if (close < 0) {
          if (this.key) this.key.push(...chunk.subarray(start));
          isEscaped = trailingBackslashes(chunk, start, chunk.length) % 2 === 1;
          break;
        }
        if (this.key) this.key.push(...chunk.subarray(start, close));
        isInString = false;
        this.endKey();
        i = close;
        continue;
      }
      const byte = chunk[i]!;
      if (byte === QUOTE) {
        isInString = true;
        if (depth === 1 && this.where === 'object') this.key = [];
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth++;
        if (depth === 1) {
          if (byte !== OPEN_BRACE || this.where !== 'before') throw new JsonShapeError(`the answer is not a JSON object with a "${this.field}" list`);
          this.where = 'object';
        } else if (depth === 2 && this.where === 'object' && this.lastKey === this.field) {
          if (byte !== OPEN_BRACKET) throw new JsonShapeError(`"${this.field}" is not a list`);
          this.where = 'items';
          this.hasField = true;
        } else if (depth === 3 && this.where === 'items') {
          this.item = [];
          from = i;
        }
        continue;
      }
      if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth === 2 && this.item) {
          this.item.push(Buffer.from(chunk.buffer, chunk.byteOffset + from, i + 1 - from));
          from = -1;
          save();
          this.emit();
        } else if (depth === 1 && this.where === 'items') {
          this.where = 'object';
          this.lastKey = '';
        } else if (depth === 0) {
          this.where = 'after';
        } else if (depth < 0) {
          throw new JsonShapeError('the answer is not JSON: a bracket closes that was never opened');
        }
        continue;
      }
      if (byte === COLON || byte === COMMA || byte <= SPACE) continue;
      // A number, true, false or null: an item of the list must be a record.
      if (depth === 2 && this.where === 'items') throw new JsonShapeError(`${this.field}[${this.count}] is not an object`);
      if (this.where === 'before' || this.where === 'after') throw new JsonShapeError(`the answer is not a JSON object with a "${this.field}" list`);
    }
    save();
    if (this.item && from >= 0) this.item.push(Buffer.from(chunk.buffer, chunk.byteOffset + from, chunk.length - from));
  }

  /** The answer is complete: throws JsonShapeError when it was cut short or had no such field. */
  end(): void {
    if (this.where !== 'after' || this.isInString || this.item) throw new JsonShapeError('the answer ends before its JSON does (cut short?)');
    if (!this.hasField) throw new JsonShapeError(`the answer has no "${this.field}" list`);
  }

  private endKey(): void {
    if (!this.key) return;
    // Escapes are left as written: a key spelt with escapes is not taken for the field.
    this.lastKey = Buffer.from(this.key).toString('utf8');
    this.key = null;
  }

  private emit(): void {
    const parts = this.item!;
    this.item = null;
    // Copied out of the chunk: the item's text must not pin the whole chunk it came in.
    const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8');
    this.onItem(JSON.parse(text), this.count++);
  }
}

/** The index of the quote that ends a string whose text starts at `from` (its first byte not escaped); -1 if not in `chunk`. */
function closingQuote(chunk: Uint8Array, from: number): number {
  for (let at = chunk.indexOf(QUOTE, from); at >= 0; at = chunk.indexOf(QUOTE, at + 1)) {
    if (trailingBackslashes(chunk, from, at) % 2 === 0) return at;
  }
  return -1;
}

/** How many backslashes stand right before `end`, counting no further back than `from`. */
function trailingBackslashes(chunk: Uint8Array, from: number, end: number): number {
  let n = 0;
  while (end - n - 1 >= from && chunk[end - n - 1] === BACKSLASH) n++;
  return n;
}
