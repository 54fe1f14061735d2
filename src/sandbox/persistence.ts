/**
 * State file: lets separate CLI runs share one sandbox (`statePath`). Written atomically (temp
 * file, fsync, rename) so a sandbox killed at any instant leaves the previous or the next
 * complete file, never a torn one. Writes are debounced; close() flushes.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import type { StockLevels } from './catalogue.js';
import type { StoredOrder } from './model.js';
import type { Counters } from './state.js';

export interface PersistedState {
  format: 'order-batch-sandbox-state';
  version: 1;
  /** Real time of the save, and the simulated time then: the clock resumes from their difference. */
  savedAtMs: number;
  simulatedNowMs: number;
  orders: StoredOrder[];
  stock: Record<string, Record<string, number>>;
  counters: Counters;
}

const persistedSchema = z.object({
  format: z.literal('order-batch-sandbox-state'),
  version: z.literal(1),
  savedAtMs: z.number(),
  simulatedNowMs: z.number(),
  orders: z.array(
    z.object({
      payload: z.object({ orderDetails: z.object({ customerOrderId: z.string(), lineItems: z.array(z.unknown()) }).loose() }).loose(),
      createdAtMs: z.number(),
      allocations: z.array(z.object({ centers: z.array(z.object({ center: z.string(), quantity: z.number() })), shortfall: z.number() })),
    }),
  ),
  stock: z.record(z.string(), z.record(z.string(), z.number())),
  counters: z.object({ postsReceived: z.number(), duplicatesRejected: z.number() }),
});

/** The saved state, or null when the file does not exist yet. */
export async function loadStateFile(path: string): Promise<PersistedState | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`cannot read sandbox state file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`sandbox state file ${path} is not valid JSON; delete it to start afresh`, { cause: error });
  }
  const parsed = persistedSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`sandbox state file ${path} is not a sandbox state (version 1); delete it to start afresh`);
  return parsed.data as unknown as PersistedState;
}

export function stockToJson(stock: StockLevels): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [center, levels] of stock) out[center] = Object.fromEntries(levels);
  return out;
}

export function stockFromJson(json: Record<string, Record<string, number>>): StockLevels {
  return new Map(Object.entries(json).map(([center, levels]) => [center, new Map(Object.entries(levels))]));
}

/** Writes `text` to `path` so that readers see the old or the new content, never a mix. */
export function writeFileAtomic(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // The temp file may already be gone; the rename error is the one worth reporting.
    }
    throw error;
  }
}

export interface StateWriter {
  /** Note a change; the file is written within debounceMs. */
  schedule(): void;
  /** Write now if a change is pending. */
  flush(): void;
}

export function createStateWriter(path: string, snapshot: () => PersistedState, onError: (error: unknown) => void, debounceMs = 25): StateWriter {
  let timer: NodeJS.Timeout | null = null;
  let dirty = false;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!dirty) return;
    dirty = false;
    try {
      writeFileAtomic(path, JSON.stringify(snapshot()));
    } catch (error) {
      onError(error);
    }
  };
  return {
    schedule() {
      dirty = true;
      timer ??= setTimeout(flush, debounceMs);
    },
    flush,
  };
}
