/** Account names and e-mail addresses: what may be one, and the one form it is kept and compared in. */
import { z } from 'zod';

const NAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;

export type NameCheck = { ok: true; name: string } | { ok: false; message: string };

/** Names are compared without case ("Maria" logs in as "maria"), so they are kept in lower case. */
export function checkUserName(text: string): NameCheck {
  const name = text.trim().toLowerCase();
  if (NAME.test(name)) return { ok: true, name };
  return {
    ok: false,
    message: `"${text}" cannot be an account name: use 1 to 64 letters, digits, dots, dashes, underscores or @, starting with a letter or digit (e.g. maria or m.rossi@example.com).`,
  };
}

export type EmailCheck = { ok: true; email: string } | { ok: false; message: string };

const EMAIL = z.email();

/** An account's e-mail address, kept in lower case: a company login's e-mail is matched without case. */
export function checkEmail(text: string): EmailCheck {
  const email = text.trim().toLowerCase();
  if (email.length <= 254 && EMAIL.safeParse(email).success) return { ok: true, email };
  return { ok: false, message: `"${text}" is not an e-mail address (e.g. m.rossi@example.com).` };
}
