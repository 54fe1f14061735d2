/** How many requests of one kind are in flight at once, and the most there have been: the team's concurrency cap is checked against it. */
export interface InFlightCounter {
  /** One more in flight; the function returned takes it out (once, however often it is called). */
  enter(): () => void;
  readonly current: number;
  readonly max: number;
  /** Forgets the most seen (what is in flight stays counted). */
  resetMax(): void;
}

export function createInFlightCounter(): InFlightCounter {
  let current = 0;
  let max = 0;
  return {
    enter() {
      current++;
      if (current > max) max = current;
      let isIn = true;
      return () => {
        if (!isIn) return;
        isIn = false;
        current--;
      };
    },
    get current() {
      return current;
    },
    get max() {
      return max;
    },
    resetMax() {
      max = current;
    },
  };
}
