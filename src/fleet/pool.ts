/** What became of one item of a pooled run. */
export type Outcome<T, R> =
  | { item: T; index: number; status: 'ok'; value: R }
  | { item: T; index: number; status: 'failed'; error: unknown }
  | { item: T; index: number; status: 'skipped' };

export interface PoolOptions {
  /** Items not started yet are skipped once this says so (the first failure without --continue-on-error). */
  stop?: () => boolean;
}

/**
 * Runs `work` for each item, at most `concurrency` at once, and yields the outcomes in the items' order however the
 * work interleaves: the output of a fleet run is the same whatever the timing. A failure is an outcome, not a throw.
 */
export async function* orderedPool<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>, options: PoolOptions = {}): AsyncGenerator<Outcome<T, R>> {
  const outcomes = new Map<number, Promise<Outcome<T, R>>>();
  let next = 0;
  let active = 0;
  // A slow item does not hold the others back: a new item starts whenever one settles, and finished outcomes wait
  // (in `outcomes`) until their turn to be yielded.
  const start = (): void => {
    while (active < Math.max(1, concurrency) && next < items.length) {
      const index = next++;
      const item = items[index];
      if (options.stop?.()) {
        outcomes.set(index, Promise.resolve({ item, index, status: 'skipped' }));
        continue;
      }
      active++;
      const settle = (outcome: Outcome<T, R>): Outcome<T, R> => {
        active--;
        start();
        return outcome;
      };
      outcomes.set(
        index,
        work(item, index).then(
          (value) => settle({ item, index, status: 'ok', value }),
          (error: unknown) => settle({ item, index, status: 'failed', error }),
        ),
      );
    }
  };
  start();
  for (let index = 0; index < items.length; index++) {
    start();
    const outcome = await outcomes.get(index)!;
    outcomes.delete(index);
    yield outcome;
  }
}
