// A bounded wait, used on both sides of the thread boundary: the host's pool and generation wait
// a while for threads or checks, a worker's command waits a while for its last log lines.
/** Waits for `promise` (settled either way), but no longer than `ms`. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))));
  await Promise.race([promise.catch(() => undefined), waited]);
  clearTimeout(timer);
}
