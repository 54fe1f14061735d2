/**
 * US ZIP codes (api-spec.md 2.1.1: 5 digits, or ZIP+4 with a dash). Excel drops leading zeros
 * from numbers, so 3 or 4 digits are a ZIP that lost its zeros: padded, with a warning.
 * ZIPs start at 00501, so fewer than 3 digits cannot be one. Nine digits typed without a dash are
 * refused (the spec wants the dash) with the dashed form suggested; the tool does not reshape a
 * typed ZIP+4 on its own. A number cell of 7 to 9 digits is another matter: it is how Excel stores a
 * ZIP+4 under its "Zip Code + 4" format (shown as 01234-5678), so it is read that way, with a warning.
 */
import { US_ZIP_PATTERN } from '../contract/schemas.js';
import { problem, type CellProblem } from './cells.js';
import { quote } from './text.js';

export interface PostalCheck {
  /** The ZIP to send (padded when it lost its leading zeros). */
  readonly value: string;
  readonly problem: CellProblem | null;
}

const DIGITS = /^\d+$/;

export function checkUsPostalCode(text: string, header: string, isNumberCell = false): PostalCheck {
  if (US_ZIP_PATTERN.test(text)) return { value: text, problem: null };
  if (DIGITS.test(text)) {
    if (text.length === 3 || text.length === 4) {
      const padded = text.padStart(5, '0');
      return {
        value: padded,
        problem: problem('postal_code_padded', `ZIP code ${quote(text)} lost its leading zero (Excel drops it from numbers) and was read as ${padded}. Format the ${header} column as Text to keep leading zeros.`),
      };
    }
    if (text.length >= 7 && text.length <= 9) {
      const nine = text.padStart(9, '0');
      const dashed = `${nine.slice(0, 5)}-${nine.slice(5)}`;
      if (isNumberCell) {
        return {
          value: dashed,
          problem: problem('postal_code_padded', `ZIP code ${quote(text)} is stored as a number (Excel's "Zip Code + 4" format shows it as ${dashed}) and was read as ${dashed}. Format the ${header} column as Text to keep ZIP codes as typed.`),
        };
      }
      return { value: text, problem: problem('invalid_postal_code', `ZIP code ${quote(text)} needs a dash for ZIP+4: write it as ${nine.slice(0, 5)}-${nine.slice(5)} (and format the ${header} column as Text).`) };
    }
  }
  return { value: text, problem: problem('invalid_postal_code', `ZIP code ${quote(text)} is not a US ZIP: use 5 digits, like 01234, or ZIP+4 like 01234-5678.`) };
}
