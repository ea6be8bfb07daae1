// Decides how often `ctx:show` asks the worker to look at the snapshot box: about every
// CHECK_EVERY_MS of showing. A tool that shows rarely is looked at on every show; one that shows in
// a tight loop only every few thousand shows, so that the looks cost nothing measurable.

// Well under the 33 ms between snapshots, and rare enough that looking costs nothing measurable.
const CHECK_EVERY_MS = 10;
const MAX_SHOWS_BETWEEN_CHECKS = 65_536;

export class SnapshotPacer {
  private lastCheckAt = -Infinity;
  private lastShows = 0;

  reset(): void {
    this.lastCheckAt = -Infinity;
    this.lastShows = 0;
  }

  /** How many more shows until the next look, given `shows` so far and `now` (ms). */
  next(shows: number, now: number): number {
    const elapsed = now - this.lastCheckAt;
    const made = Math.max(1, shows - this.lastShows);
    this.lastCheckAt = now;
    this.lastShows = shows;
    // Shows came faster than the interval: look half as often next time.
    if (elapsed < CHECK_EVERY_MS) return Math.min(made * 2, MAX_SHOWS_BETWEEN_CHECKS);
    return Math.max(1, Math.min(MAX_SHOWS_BETWEEN_CHECKS, Math.floor((made / elapsed) * CHECK_EVERY_MS)));
  }
}
