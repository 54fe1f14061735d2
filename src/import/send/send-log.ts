/**
 * What a sending run tells its JSON log (stderr) at info level, for whoever reads a cron log: when
 * it starts sending, when it slows down because the API is failing and when it recovers, when it
 * stops early and why, and one closing line with the counts. A retry is one debug line, not more.
 */
import type { FailureGuard, GuardPhase } from '../../api/breaker.js';
import { FAILURE_GUARD_DEFAULTS } from '../../api/breaker.js';
import { apiTroubleOf, describeApiTrouble } from '../../api/error-message.js';
import type { Logger } from '../../log.js';

export interface SendLog {
  started(): void;
  /** After each attempt the guard judged: logs a change of pace, not the attempt. */
  recorded(error?: unknown): void;
  /** The last retryable failure, worded by cause; undefined when none was seen. */
  lastTrouble(): string | undefined;
  /** The run stops sending (once per run; later calls are ignored). */
  stopped(reason: { kind: string; message: string }): void;
  finished(result: SendCounts): void;
}

export interface SendCounts {
  byStatus: Record<string, number>;
  posts: number;
  /** Failed orders whose outcome is unknown: the next run looks each one up before it sends it again. */
  unknown: number;
  stopped?: { kind: string; message: string };
}

/**
 * Below this failure ratio, after a slowdown, the run counts as recovered. Lower than the ratio that
 * starts the slowdown, so a ratio hovering about it does not write a line per attempt.
 */
const RECOVERED_RATIO = FAILURE_GUARD_DEFAULTS.slowDownRatio / 2;

export function createSendLog(logger: Logger, guard: FailureGuard, run: { orders: number; concurrency: number; maxAttempts: number; now: () => number }): SendLog {
  const startedAt = run.now();
  let lastError: unknown;
  let reported: GuardPhase = 'healthy';
  let isStopLogged = false;

  const recentFailures = (): string => {
    const { failures, samples } = guard.state();
    return `${failures} of the last ${samples} requests failed`;
  };

  return {
    started() {
      logger.info(
        { orders: run.orders, concurrency: run.concurrency, maxAttempts: run.maxAttempts },
        `sending ${run.orders} order${run.orders === 1 ? '' : 's'}, ${run.concurrency} at a time`,
      );
    },
    recorded(error) {
      if (error !== undefined) lastError = error;
      const phase = guard.phase();
      if (phase === reported || phase === 'stopped') return;
      const cause = lastError === undefined ? {} : { cause: apiTroubleOf(lastError), last: describeApiTrouble(lastError) };
      if (phase === 'failing') {
        logger.warn(
          { phase, failureRatio: guard.state().failureRatio, ...cause },
          `the API fails nearly every request (${recentFailures()}; last: ${describeApiTrouble(lastError)}): pausing ${seconds(guard.delayBeforeNextMs())} between attempts; the run stops sending if this goes on`,
        );
        reported = phase;
      } else if (phase === 'slowing' && reported === 'healthy') {
        logger.warn(
          { phase, failureRatio: guard.state().failureRatio, pauseMs: guard.delayBeforeNextMs(), ...cause },
          `the API is failing (${recentFailures()}; last: ${describeApiTrouble(lastError)}): slowing down, pausing ${seconds(guard.delayBeforeNextMs())} between attempts`,
        );
        reported = phase;
      } else if (phase === 'healthy' && guard.state().failureRatio < RECOVERED_RATIO) {
        logger.info({ phase, failureRatio: guard.state().failureRatio }, `the API is answering again (${recentFailures()}): sending at full speed`);
        reported = phase;
      }
    },
    lastTrouble() {
      return lastError === undefined ? undefined : describeApiTrouble(lastError);
    },
    stopped(reason) {
      if (isStopLogged) return;
      isStopLogged = true;
      if (reason.kind === 'interrupted') {
        logger.warn({ reason: reason.kind }, 'stopping early: the run was interrupted; the orders in flight finish, the rest go out on the next run');
        return;
      }
      logger.warn({ reason: reason.kind, ...(lastError === undefined ? {} : { cause: apiTroubleOf(lastError) }) }, `stopping early: ${reason.message}; orders not yet sent go out on the next run`);
    },
    finished(result) {
      const counts = Object.entries(result.byStatus).map(([status, n]) => `${n} ${status}`).join(', ');
      const left = result.byStatus.failed ?? 0;
      const next = left === 0
        ? 'none left for the next run'
        : `${left} failed left for the next run${result.unknown > 0 ? ` (${result.unknown} with an unknown outcome, looked up before being sent again)` : ''}`;
      logger.info(
        {
          orders: run.orders,
          summary: result.byStatus,
          posts: result.posts,
          failedLeft: left,
          unknownLeft: result.unknown,
          elapsedMs: Math.round(run.now() - startedAt),
          ...(result.stopped ? { stopped: result.stopped.kind } : {}),
        },
        `sending done in ${seconds(run.now() - startedAt)}${result.stopped ? `, stopped early (${result.stopped.message})` : ''}: ${counts || 'nothing sent'}; ${next}`,
      );
    },
  };
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
