// Paints at most MAX_FRAMES_PER_SECOND: any number of requests between two frames make one
// frame. While something animates (a spinner), a frame is requested every ANIMATION_MS.

export const MAX_FRAMES_PER_SECOND = 30;
const ANIMATION_MS = 100;
// libuv's timers count whole milliseconds from a coarser clock than performance.now(), so a
// timer can fire a fraction early; the slack keeps two frames at least the full interval apart.
const TIMER_SLACK_MS = 1;

export class FrameScheduler {
  private timer: NodeJS.Timeout | undefined;
  private lastFrameAt = -Infinity;
  private animation: NodeJS.Timeout | undefined;
  frames = 0;

  constructor(private readonly paint: () => void) {}

  request(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastFrameAt + 1000 / MAX_FRAMES_PER_SECOND + TIMER_SLACK_MS - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastFrameAt = performance.now();
      this.frames++;
      this.paint();
    }, wait);
  }

  /** Keeps frames coming while `active` says so (spinners, elapsed times). */
  animate(active: boolean): void {
    if (active && !this.animation) this.animation = setInterval(() => this.request(), ANIMATION_MS);
    if (!active && this.animation) {
      clearInterval(this.animation);
      this.animation = undefined;
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.animate(false);
  }
}
