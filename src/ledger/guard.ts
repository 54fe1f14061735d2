/**
 * A ledger whose storage failures say what they are. Every call on the ledger (and on what it hands
 * out: the run lock, the iterators over its records, the promises of its answers) turns an error the
 * backend's classifier recognises (a full disk, a damaged file: classifySqliteError) into the
 * LedgerError it makes, naming the ledger and what to do; any other error, a bug, goes on as it is.
 * Wrapped once where a ledger is opened, so no caller has to know the backend's error codes.
 */
export function guardLedger<T extends object>(ledger: T, classify: (error: unknown) => Error | null): T {
  const fail = (error: unknown): never => {
    throw classify(error) ?? error;
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
    if (hasOwnMethods(value)) return guardObject(value);
    return value;
  };
  const guardIterator = (iterator: Iterator<unknown> & Iterable<unknown>): Iterator<unknown> & Iterable<unknown> => {
    const guarded: Iterator<unknown> & Iterable<unknown> = {
      next: (...args: [] | [unknown]) => call(iterator, iterator.next as (...a: unknown[]) => unknown, args) as IteratorResult<unknown>,
      return: (value?: unknown) => (iterator.return ? (call(iterator, iterator.return as (...a: unknown[]) => unknown, [value]) as IteratorResult<unknown>) : { done: true, value }),
      [Symbol.iterator]: () => guarded,
    };
    return guarded;
  };
  const guardObject = <O extends object>(target: O): O =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver);
        return typeof value === 'function' ? (...args: unknown[]) => call(object, value as (...a: unknown[]) => unknown, args) : value;
      },
    });
  return guardObject(ledger);
}

function isIterator(value: unknown): value is Iterator<unknown> & Iterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Iterator<unknown>).next === 'function' && typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function';
}

/** A plain object handing out functions of its own (a run lock's release): its calls are guarded too. Maps, arrays and records are not. */
function hasOwnMethods(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && Object.values(value).some((v) => typeof v === 'function');
}
