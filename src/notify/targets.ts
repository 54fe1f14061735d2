/**
 * Where a run's notification goes (PRODUCT.md section 9): `mailto:a@x[,b@y]` through the SMTP server
 * of ORDER_BATCH_SMTP_URL, or an http(s) webhook. Plain http only to this computer: a notification
 * names orders, and it is signed but not encrypted.
 */
import { isIP } from 'node:net';
import { UsageError } from '../errors.js';

export type NotifyTarget = { kind: 'mail'; to: string[] } | { kind: 'webhook'; url: string };

export const NOTIFY_ON = ['problems', 'always'] as const;
export type NotifyOn = (typeof NOTIFY_ON)[number];

/** One address: something@host, no spaces or commas (the separator). */
const ADDRESS = /^[^\s@,<>]+@[^\s@,<>]+$/;

export function parseNotifyTarget(text: string, from = '--notify'): NotifyTarget {
  const trimmed = text.trim();
  if (/^mailto:/i.test(trimmed)) {
    const to = decodeURIComponent(trimmed.slice('mailto:'.length).split('?')[0] ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== '');
    const bad = to.find((a) => !ADDRESS.test(a));
    if (to.length === 0 || bad !== undefined) throw new UsageError(`${from} takes mailto:someone@example.com[,another@example.com], not "${trimmed}".`);
    return { kind: 'mail', to };
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new UsageError(`${from} takes mailto:someone@example.com or an https:// address, not "${withoutSecrets(trimmed)}".`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(`${from}: ${url.host} is reached over plain http, which is only allowed to this computer (127.0.0.1, ::1, localhost): use https://.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${from} takes mailto:someone@example.com or an https:// address, not "${withoutSecrets(trimmed)}".`);
  }
  return { kind: 'webhook', url: url.href };
}

export function parseNotifyOn(text: string, from = '--notify-on'): NotifyOn {
  const value = text.trim().toLowerCase();
  if (value !== 'problems' && value !== 'always') throw new UsageError(`${from} takes problems or always, not "${text}".`);
  return value;
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** A target as a log line or the audit trail may name it: a webhook's host only (its path and query may hold a token, as Slack's do). */
export function describeTarget(target: NotifyTarget): string {
  if (target.kind === 'mail') return `mail to ${target.to.length} address${target.to.length === 1 ? '' : 'es'}`;
  return `webhook ${new URL(target.url).host}`;
}

function withoutSecrets(text: string): string {
  return text.replace(/\/\/[^/@\s]+@/, '//***@').replace(/\?.*$/, '?…');
}
