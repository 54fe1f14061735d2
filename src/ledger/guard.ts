/**
 * A ledger whose storage failures say what they are. Every call on the ledger (and on what it hands
 * out: a run and its transitions, the run lock, the pages of its records, the promises of its answers)
 * turns an error the backend's classifier recognises (a full disk, a damaged file: classifySqliteError)
 * into the LedgerError it makes, naming the ledger and what to do; any other error, a bug, goes on as
 * it is. Wrapped once where a ledger is opened, so no caller has to know the backend's error codes.
 */
import { reportLedgerFailure } from './error-observers.js';

export function guardLedger<T extends object>(ledger: T, classify: (error: unknown) => Error | null): T {
  const fail = (error: unknown): never => {
    const failure = classify(error) ?? error;
    reportLedgerFailure(failure);
    throw failure;
  };
  const call = (target: object, fn: (...args: unknown[]) => unknown, args: unknown[]): unknown => {
    let value: unknown;
    try {
      value = fn.apply(target, args);
    } catch (error) {
      return fail(error);
    }
    return guardValue(value);
  };
  const guardValue = (value: unknown): unknown => {
    if (value instanceof Promise) return value.then(guardValue, fail);
    if (isIterator(value)) return guardIterator(value);
    if (hasMethods(value)) return guardObject(value);
    return value;
  };
  /** A generator, sync or async: its steps are guarded, and it stays iterable the way it was. */
  const guardIterator = (iterator: Iterator<unknown> | AsyncIterator<unknown>): object => {
    const step = (name: 'next' | 'return' | 'throw') => (...args: unknown[]) => {
      const method = iterator[name] as ((...a: unknown[]) => unknown) | undefined;
      if (method) return call(iterator, method, args);
      if (name === 'throw') throw args[0];
      const done = { done: true, value: args[0] };
      return Symbol.asyncIterator in iterator ? Promise.resolve(done) : done;
    };
    const guarded: Record<string | symbol, unknown> = { next: step('next'), return: step('return'), throw: step('throw') };
    if (Symbol.asyncIterator in iterator) guarded[Symbol.asyncIterator] = () => guarded;
    if (Symbol.iterator in iterator) guarded[Symbol.iterator] = () => guarded;
    return guarded;
  };
  const guardObject = <O extends object>(target: O): O =>
    new Proxy(target, {
      get(object, key) {
        const value = Reflect.get(object, key, object);
        return typeof value === 'function' ? (...args: unknown[]) => call(object, value as (...a: unknown[]) => unknown, args) : value;
      },
    });
  return guardObject(ledger);
}

function isIterator(value: unknown): value is Iterator<unknown> | AsyncIterator<unknown> {
  if (typeof value !== 'object' || value === null || typeof (value as Iterator<unknown>).next !== 'function') return false;
  return Symbol.iterator in value || Symbol.asyncIterator in value;
}

/** Values handed out as they are: the ledger's data (records, maps of them, lists, dates), never a thing with calls of its own. */
const DATA = [Array, Map, Set, Date, Uint8Array, Error];

/**
 * Something the ledger hands out with calls of its own (a run, a run lock's release, a send gate):
 * its calls are guarded too. Plain records, and the built-in containers they come in, are not.
 */
function hasMethods(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || DATA.some((type) => value instanceof type)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype !== Object.prototype && prototype !== null) || Object.values(value).some((v) => typeof v === 'function');
}
