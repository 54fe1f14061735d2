/**
 * Fault injection (PRODUCT.md section 7): latency, a share of errors (429 with Retry-After, 5xx),
 * connection resets (nothing stored) and lost replies (the order IS stored, then the connection is
 * dropped). Decisions come from a PRNG reseeded from the sandbox seed whenever faults are set, so a
 * test that sets faults and sends requests one by one sees the same faults on every run.
 */
import { z } from 'zod';
import { createRng, hashText, type Rng } from './random.js';

export interface FaultSettings {
  /** Answers leave this many real milliseconds after their request arrived (the work is done meanwhile), never sooner. */
  latencyMs?: number;
  /** Share of requests answered with an error status (see `statuses`). */
  errorRate?: number;
  /** Share of requests whose connection is destroyed before anything is stored. */
  resetRate?: number;
  /** Share of requests handled (an order IS stored) whose reply is then lost (connection destroyed). */
  lostReplyRate?: number;
  /** Path prefixes the faults apply to; default every /api/v0 path. */
  paths?: string[];
  /** Error statuses drawn from for `errorRate`; default [429, 503, 500]. 429 carries Retry-After: 1. */
  statuses?: number[];
}

/**
 * The real time injected latency is measured in: performance.now and timers. A test hands in one it
 * moves by hand, so "never sooner than latencyMs" is checked without reading the wall clock.
 */
export interface LatencyClock {
  now(): number;
  /** Runs `run` once `ms` have passed; `cancel` forgets it. */
  setTimer(run: () => void, ms: number): { cancel(): void };
}

export const REAL_LATENCY_CLOCK: LatencyClock = {
  now: () => performance.now(),
  setTimer(run, ms) {
    const timer = setTimeout(run, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

export const DEFAULT_FAULT_PATHS = ['/api/v0'];
export const DEFAULT_ERROR_STATUSES = [429, 503, 500];

const rate = z.number().min(0).max(1);
export const faultSettingsSchema = z
  .object({
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    errorRate: rate.optional(),
    resetRate: rate.optional(),
    lostReplyRate: rate.optional(),
    paths: z.array(z.string().startsWith('/')).optional(),
    statuses: z.array(z.union([z.literal(429), z.number().int().min(500).max(599)])).min(1).optional(),
  })
  .strict()
  .refine((f) => (f.errorRate ?? 0) + (f.resetRate ?? 0) + (f.lostReplyRate ?? 0) <= 1, 'errorRate + resetRate + lostReplyRate must not exceed 1');

export type FaultDecision = { kind: 'none' } | { kind: 'reset' } | { kind: 'lost_reply' } | { kind: 'error'; status: number };

export interface FaultInjector {
  get(): FaultSettings;
  /** Replaces the settings ({} clears them) and restarts the seeded sequence. */
  set(settings: FaultSettings): void;
  appliesTo(path: string): boolean;
  latencyMs(): number;
  /** One draw per request on a faulted path. */
  decide(): FaultDecision;
}

/** The start option faultRate P: three quarters errors, one quarter resets. */
export function faultsFromRate(faultRate: number | undefined, latencyMs: number | undefined): FaultSettings {
  const settings: FaultSettings = {};
  if (latencyMs) settings.latencyMs = latencyMs;
  if (faultRate) {
    settings.errorRate = faultRate * 0.75;
    settings.resetRate = faultRate * 0.25;
  }
  return settings;
}

export function createFaultInjector(seed: number, initial: FaultSettings = {}): FaultInjector {
  let settings: FaultSettings = {};
  let rng: Rng = createRng(0);
  let paths = DEFAULT_FAULT_PATHS;
  const injector: FaultInjector = {
    get: () => ({ ...settings }),
    set(next) {
      settings = { ...next };
      paths = next.paths ?? DEFAULT_FAULT_PATHS;
      rng = createRng(hashText('faults', seed | 0));
    },
    appliesTo(path) {
      for (const p of paths) if (path.startsWith(p)) return true;
      return false;
    },
    latencyMs: () => settings.latencyMs ?? 0,
    decide() {
      const reset = settings.resetRate ?? 0;
      const error = settings.errorRate ?? 0;
      const lost = settings.lostReplyRate ?? 0;
      if (reset + error + lost === 0) return { kind: 'none' };
      const u = rng.next();
      if (u < reset) return { kind: 'reset' };
      if (u < reset + error) return { kind: 'error', status: rng.pick(settings.statuses ?? DEFAULT_ERROR_STATUSES) };
      if (u < reset + error + lost) return { kind: 'lost_reply' };
      return { kind: 'none' };
    },
  };
  injector.set(initial);
  return injector;
}
