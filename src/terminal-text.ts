/**
 * Text printed for a person, with its control characters made visible. A cell or a file name may hold
 * `ESC ] 0 ; title BEL` (retitles the terminal), `ESC [ 2 J` (clears it) or a carriage return (writes
 * over the line): printed raw, a sheet from anywhere could rewrite what the person reads. Each such
 * character is shown as an escape (`\x1B`), as the --json report shows it (`\u001b`).
 */

/**
 * C0 controls but tab and line feed, DEL, C1 controls (0x9B alone starts a sequence on some terminals),
 * and the Unicode line separators and bidirectional overrides that reorder what is shown.
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
const CONTROL_OR_LINE_FEED = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

function escapeOne(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  return code <= 0xff ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}` : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** One line of text (a value, a message): line feeds inside it are escaped too, so it cannot pass for two lines. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_OR_LINE_FEED, escapeOne);
}

/** Text of several lines (a report): its line feeds stay, every other control character is escaped. */
export function escapeControlCharactersInLines(text: string): string {
  return text.replace(CONTROL, escapeOne);
}
