// The outcome of running one suite file, natively or in moonpool.

export interface FileOutcome {
  passed: boolean;
  /** Wall-clock time of the run, in ms. */
  ms: number;
  /** Where the file failed (`files.lua:123`), or '' when it passed. */
  failure: string;
  /** The whole error text, for `--verbose`. */
  detail: string;
}
