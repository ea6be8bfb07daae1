// `resources/read` one at a time, each begun only once the answers before it have left for the
// pipe: a spill file holds up to 16 MiB and its answer up to six times as many characters (control
// bytes escape as \u0001), so however many reads a client sends at once the server holds about two
// answers. Past MAX_WAITING_READS waiting, a read is refused at once with a clear error.
export const MAX_WAITING_READS = 64;
/** JSON-RPC's range for a server's own errors: the server is busy. */
export const SERVER_BUSY = -32000;

class BusyError extends Error {
  readonly code = SERVER_BUSY;
}

export class ResourceReads {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  /** `whenRoom` resolves once the answers already sent are no longer held back by a full pipe. */
  constructor(private readonly whenRoom: () => Promise<void>) {}

  run<T>(read: () => Promise<T>): Promise<T> {
    if (this.waiting >= MAX_WAITING_READS) {
      return Promise.reject(
        new BusyError(
          `Server busy: ${MAX_WAITING_READS} resources/read requests wait already; send it again once some are answered`,
        ),
      );
    }
    this.waiting++;
    const result = this.tail
      // A turn of the event loop lets the answer before this one reach the transport first.
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => this.whenRoom())
      .then(() => {
        this.waiting--;
        return read();
      });
    this.tail = result.catch(() => undefined);
    return result;
  }
}
