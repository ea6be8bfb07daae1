// Small statistics and timing helpers for the benchmarks.

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Runs `action` `warmup` times unmeasured, then `count` times; returns each duration in ms. */
export async function timeEach(count: number, warmup: number, action: () => unknown): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await action();
  const durations: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await action();
    durations.push(performance.now() - started);
  }
  return durations;
}

/**
 * Times two actions in alternating rounds, so that drift in the machine's speed (thread wake-up
 * latency varies by several times on a VM) falls on both alike. Returns each one's durations.
 */
export async function timeInterleaved(
  rounds: number,
  perRound: number,
  warmup: number,
  first: () => unknown,
  second: () => unknown,
): Promise<[number[], number[]]> {
  const a: number[] = [];
  const b: number[] = [];
  await timeEach(0, warmup, first);
  await timeEach(0, warmup, second);
  for (let round = 0; round < rounds; round++) {
    a.push(...(await timeEach(perRound, 0, first)));
    b.push(...(await timeEach(perRound, 0, second)));
  }
  return [a, b];
}
