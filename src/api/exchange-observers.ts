/**
 * Who watches the API exchanges (the metrics of serve and --metrics-file): the edge that wants them
 * adds an observer, the transport tells each one of every answer and failure. The client's code
 * stays unaware of what is done with them.
 */
export interface ExchangeObservation {
  /** The HTTP status, or null when no answer came (a transport failure). */
  status: number | null;
  seconds: number;
}

export interface RetryObservation {
  attempt: number;
}

export interface ExchangeObserver {
  onExchange?(observation: ExchangeObservation): void;
  onRetry?(observation: RetryObservation): void;
}

const observers = new Set<ExchangeObserver>();

export function addExchangeObserver(observer: ExchangeObserver): () => void {
  observers.add(observer);
  return () => void observers.delete(observer);
}

export function reportExchange(observation: ExchangeObservation): void {
  for (const observer of observers) observer.onExchange?.(observation);
}

export function reportRetry(observation: RetryObservation): void {
  for (const observer of observers) observer.onRetry?.(observation);
}
