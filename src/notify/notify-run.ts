/**
 * After a run: tell each target how it went, when it should (--notify-on). Every target is tried at
 * once and on its own; whatever happens, the run's exit code and results stand: a notification that
 * cannot be delivered is logged and handed to `onFailure` (the audit trail), never thrown.
 */
import type { Logger } from '../log.js';
import { DEFAULT_DELIVERY_BOUND_MS, deliverMail, deliverWebhook, type DeliveryOptions } from './deliver.js';
import { buildNotice, hasProblems, type RunFacts } from './notice.js';
import { describeTarget, type NotifyOn, type NotifyTarget } from './targets.js';

export interface NotifySettings {
  targets: readonly NotifyTarget[];
  on: NotifyOn;
  /** ORDER_BATCH_SMTP_URL: smtp:// or smtps://user:password@host:port. */
  smtpUrl?: string;
  /** ORDER_BATCH_WEBHOOK_SECRET: the HMAC key of X-Order-Batch-Signature. */
  webhookSecret?: string;
  /** --public-url: the web app's address, for a link to the run. */
  publicUrl?: string;
}

export interface NotifyFailure {
  target: string;
  reason: string;
}

export interface NotifyRunOptions {
  settings: NotifySettings;
  facts: Omit<RunFacts, 'url'>;
  /** The run's page under --public-url (e.g. /jobs/<id>), when it has one. */
  path?: string;
  logger: Logger;
  onFailure?: (failure: NotifyFailure) => Promise<void> | void;
  delivery?: Partial<DeliveryOptions>;
}

/** The targets notified and those that could not be; nothing when the run did not call for it. */
export async function notifyRun(options: NotifyRunOptions): Promise<{ delivered: string[]; failed: NotifyFailure[] }> {
  const { settings, logger } = options;
  const outcome = { delivered: [] as string[], failed: [] as NotifyFailure[] };
  if (settings.targets.length === 0) return outcome;
  if (settings.on === 'problems' && !hasProblems(options.facts)) return outcome;
  const url = settings.publicUrl ? `${settings.publicUrl.replace(/\/+$/, '')}${options.path ?? '/history'}` : undefined;
  const notice = buildNotice({ ...options.facts, ...(url ? { url } : {}) });
  const delivery: DeliveryOptions = { boundMs: DEFAULT_DELIVERY_BOUND_MS, ...options.delivery };
  await Promise.all(
    settings.targets.map(async (target) => {
      const name = describeTarget(target);
      try {
        if (target.kind === 'webhook') await deliverWebhook(target.url, notice, settings.webhookSecret, delivery);
        else if (!settings.smtpUrl) throw new Error('ORDER_BATCH_SMTP_URL is not set, so no mail can be sent');
        else await deliverMail(settings.smtpUrl, target.to, notice, delivery);
        outcome.delivered.push(name);
        logger.info({ target: name }, 'notification delivered');
      } catch (error) {
        const failure = { target: name, reason: (error as Error).message };
        outcome.failed.push(failure);
        logger.warn(failure, 'the notification could not be delivered');
        await Promise.resolve(options.onFailure?.(failure)).catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'the failed notification could not be recorded'));
      }
    }),
  );
  return outcome;
}
