/** Who runs a CLI command, for the audit trail: the operating-system user on this host. */
import { hostname, userInfo } from 'node:os';
import type { Actor } from './manage.js';

export function osActor(): Actor {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    // A container's user without a passwd entry has a uid but no name.
    name = `uid ${process.getuid?.() ?? 'unknown'}`;
  }
  return { name, via: 'cli', address: hostname() };
}
