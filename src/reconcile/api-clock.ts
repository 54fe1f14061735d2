/**
 * Which clock a run without --now reconciles by: the API's. The end of the tracking window, the
 * late-shipment clock and the coverage recorded for the next run are all instants on the API's
 * clock (it stamps the packages), and a cron machine's clock, or a sandbox whose clock was moved,
 * can be far from it: ended at our time, a window misses what the API updated "later".
 */
import type { Logger } from '../log.js';
import type { ApiReader } from './fetch.js';

/** Beyond this the two clocks are said to differ (a log line); below it the difference is latency and rounding. */
export const CLOCK_SKEW_NOTICE_MS = 60_000;

/**
 * The API's time (from the Date header of its answers), else `localNow` when the API does not tell.
 * A whole second: the header says no more, and the milliseconds ApiClient.serverNow adds (local time
 * elapsed since the answer) would make two runs at the same header judge a boundary differently
 * (an order exactly --late-after-days old late in one, not in the other).
 */
export async function readRunNow(reader: Pick<ApiReader, 'readServerNow'>, localNow: Date, logger: Logger): Promise<Date> {
  const heard = await reader.readServerNow();
  const apiNow = heard === null ? null : new Date(Math.floor(heard.getTime() / 1000) * 1000);
  if (apiNow === null) {
    logger.debug({ localTime: localNow.toISOString() }, 'the API sends no Date header: reconciling as of the local clock');
    return localNow;
  }
  const skewMs = apiNow.getTime() - localNow.getTime();
  if (Math.abs(skewMs) > CLOCK_SKEW_NOTICE_MS) {
    logger.info({ apiTime: apiNow.toISOString(), localTime: localNow.toISOString(), skewMs }, "the API's clock differs from this machine's: reconciling as of the API's");
  }
  return apiNow;
}
