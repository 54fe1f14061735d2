/** The notification settings of a run, from flags, environment and config file (options.ts merges them all through here). */
import { UsageError } from '../errors.js';
import type { NotifySettings } from './notify-run.js';
import { parseNotifyOn, parseNotifyTarget } from './targets.js';

export interface NotifyInputs {
  flags: { notify?: string[]; notifyOn?: string; publicUrl?: string };
  env: { ORDER_BATCH_SMTP_URL?: string; ORDER_BATCH_WEBHOOK_SECRET?: string };
  config: { notify?: string[]; notifyOn?: string; publicUrl?: string };
  inConfig: (key: string) => string;
}

export function resolveNotifySettings({ flags, env, config, inConfig }: NotifyInputs): NotifySettings {
  const fromFlags = flags.notify !== undefined && flags.notify.length > 0;
  const targets = (fromFlags ? flags.notify! : (config.notify ?? [])).map((t) => parseNotifyTarget(t, fromFlags ? '--notify' : inConfig('notify')));
  const on = flags.notifyOn !== undefined ? parseNotifyOn(flags.notifyOn) : config.notifyOn !== undefined ? parseNotifyOn(config.notifyOn, inConfig('notifyOn')) : 'problems';
  const smtpUrl = nonEmpty(env.ORDER_BATCH_SMTP_URL);
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s/]+/i.test(smtpUrl)) throw new UsageError('ORDER_BATCH_SMTP_URL takes smtp://user:password@host:port or smtps://…, as the mail server gives it.');
  const publicUrl = nonEmpty(flags.publicUrl) ?? nonEmpty(config.publicUrl);
  if (publicUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(publicUrl)) {
    throw new UsageError(`${flags.publicUrl ? '--public-url' : inConfig('publicUrl')} takes the web app's address such as https://orders.example.com, not "${publicUrl}".`);
  }
  const webhookSecret = nonEmpty(env.ORDER_BATCH_WEBHOOK_SECRET);
  return { targets, on, ...(smtpUrl ? { smtpUrl } : {}), ...(webhookSecret ? { webhookSecret } : {}), ...(publicUrl ? { publicUrl } : {}) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
