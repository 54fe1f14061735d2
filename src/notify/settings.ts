/** The notification settings of a run, from flags, environment and config file (options.ts merges them all through here). */
import { UsageError } from '../errors.js';
import type { NotifySettings } from './notify-run.js';
import { parseNotifyOn, parseNotifyTarget } from './targets.js';

export interface NotifyInputs {
  flags: { notify?: string[]; notifyOn?: string; publicUrl?: string };
  /** From the environment (options.ts reads it): the SMTP server's URL and the webhook's HMAC key. */
  secrets: { smtpUrl?: string; webhookSecret?: string };
  config: { notify?: string[]; notifyOn?: string; publicUrl?: string };
  inConfig: (key: string) => string;
}

export function resolveNotifySettings({ flags, secrets, config, inConfig }: NotifyInputs): NotifySettings {
  const fromFlags = flags.notify !== undefined && flags.notify.length > 0;
  const targets = (fromFlags ? flags.notify! : (config.notify ?? [])).map((t) => parseNotifyTarget(t, fromFlags ? '--notify' : inConfig('notify')));
  const on = flags.notifyOn !== undefined ? parseNotifyOn(flags.notifyOn) : config.notifyOn !== undefined ? parseNotifyOn(config.notifyOn, inConfig('notifyOn')) : 'problems';
  const smtpUrl = nonEmpty(secrets.smtpUrl);
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s/]+/i.test(smtpUrl)) throw new UsageError('ORDER_BATCH_SMTP_URL takes smtp://user:password@host:port or smtps://…, as the mail server gives it.');
  const publicUrl = nonEmpty(flags.publicUrl) ?? nonEmpty(config.publicUrl);
  if (publicUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(publicUrl)) {
    throw new UsageError(`${flags.publicUrl ? '--public-url' : inConfig('publicUrl')} takes the web app's address such as https://orders.example.com, not "${publicUrl}".`);
  }
  const webhookSecret = nonEmpty(secrets.webhookSecret);
  return { targets, on, ...(smtpUrl ? { smtpUrl } : {}), ...(webhookSecret ? { webhookSecret } : {}), ...(publicUrl ? { publicUrl } : {}) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
