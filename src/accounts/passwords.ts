/**
 * Passwords: argon2id (@node-rs/argon2, a Rust build shipped in the npm package for each platform, so
 * nothing is compiled or downloaded at install time) with its default cost (19 MiB, 2 passes: the
 * OWASP minimum), kept as PHC strings so a later cost still verifies the earlier hashes.
 */
import { hash, verify } from '@node-rs/argon2';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/** Why a password cannot be used; null when it can. */
export function checkPasswordRules(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `The password must have at least ${PASSWORD_MIN} characters (a short sentence is easy to remember).`;
  if (password.length > PASSWORD_MAX) return `The password must have at most ${PASSWORD_MAX} characters.`;
  if (password.trim() !== password) return 'The password must not start or end with a space (it would be lost when copied).';
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// A hash of nothing anyone knows: an unknown account's login costs what a wrong password does, so
// the time of the answer does not tell which accounts exist.
let decoy: Promise<string> | undefined;

/** Whether `password` is the one hashed; `storedHash` null (no such account) is never. */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  decoy ??= hash('a password no account has: it only costs time');
  try {
    const isMatch = await verify(storedHash ?? (await decoy), password);
    return storedHash !== null && isMatch;
  } catch {
    // A hash that is not one (edited by hand): no password matches it.
    return false;
  }
}
