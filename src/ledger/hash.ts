/**
 * Payload fingerprints. Two payloads that mean the same order (same fields, any key order) hash
 * the same, so "the sheet changed since it was accepted" can be told from "the sheet was re-read".
 */
import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth; arrays keep their order (line order is meaningful).
 * Like JSON.stringify, undefined properties are left out, so an optional field that is absent and one
 * that is undefined hash the same.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** sha256 (hex) of the canonical JSON of a payload. */
export function hashPayload(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

/**
 * A payload's JSON text (what is POSTed and recorded) and its hash, worked out once for that very
 * object. The hash costs more than the rest of an order's ledger work: an import makes them ahead
 * of the ledger, a few per turn of the event loop (send-ahead.ts), not in the commit answers wait on.
 */
export interface PayloadFingerprint {
  readonly payload: object;
  readonly json: string;
  readonly hash: string;
}

export function fingerprintPayload(payload: object): PayloadFingerprint {
  return { payload, json: JSON.stringify(payload), hash: hashPayload(payload) };
}
