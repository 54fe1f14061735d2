/**
 * Where a config file stops being JSON, in words a person can act on: the line, the column and what
 * was expected there. Never the text itself: a file given by mistake (a .env, a key file) may hold a
 * secret, and an error message goes to the terminal, the cron log and the --json report.
 */
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';

const WHAT: Readonly<Record<string, string>> = {
  InvalidSymbol: 'a character that cannot start a JSON value (is this the JSON config file?)',
  InvalidNumberFormat: 'a number written in a way JSON does not allow',
  PropertyNameExpected: 'a key in double quotes was expected (no comma after the last key)',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a ":" was expected after the key',
  CommaExpected: 'a "," was expected',
  CloseBraceExpected: 'a closing "}" was expected',
  CloseBracketExpected: 'a closing "]" was expected',
  EndOfFileExpected: 'the JSON object has ended, but more text follows',
  InvalidCommentToken: 'a comment, which JSON does not allow',
  UnexpectedEndOfComment: 'a comment that is never closed, which JSON does not allow anyway',
  UnexpectedEndOfString: 'a string whose closing quote is missing',
  UnexpectedEndOfNumber: 'a number that is cut short',
  InvalidUnicode: 'a \\u escape that is not four hex digits',
  InvalidEscapeCharacter: 'a backslash escape JSON does not know',
  InvalidCharacter: 'a control character (a tab or line break) inside a string',
};

/** "line 3, column 14: a "," was expected", or null when `text` is JSON after all. */
export function describeJsonSyntaxError(text: string): string | null {
  if (text.trim() === '') return 'the file is empty';
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return null;
  const code = printParseErrorCode(first.error);
  const { line, column } = lineAndColumn(text, first.offset);
  return `line ${line}, column ${column}: ${WHAT[code] ?? 'the text is not JSON'}`;
}

/**
 * "line 5, column 15" of the value at `path` (keys and array indexes) in JSON text, or of the nearest
 * object holding it when it is missing (a required key left out); null when none is there.
 */
export function describeJsonLocation(text: string, path: readonly (string | number)[]): string | null {
  const root = parseTree(text);
  if (!root) return null;
  let node;
  for (let depth = path.length; depth > 0 && !node; depth--) node = findNodeAtLocation(root, path.slice(0, depth));
  if (!node) return null;
  const { line, column } = lineAndColumn(text, node.offset);
  return `line ${line}, column ${column}`;
}

/** 1-based line and column of a character offset, as an editor shows them (CRLF and LF end a line). */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}
