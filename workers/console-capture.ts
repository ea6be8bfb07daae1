// What the WebAssembly runtime prints (emscripten reports to console.error/log, e.g. "Cannot
// enlarge memory") must not reach the host's terminal, where a dashboard owns the screen. Inside a
// worker, console output goes to the running call's log instead, or nowhere between calls.

export function captureConsole(log: (text: string) => void): void {
  const route = (...parts: unknown[]): void =>
    log(parts.map((part) => (typeof part === 'string' ? part : String(part))).join(' '));
  console.log = route;
  console.info = route;
  console.warn = route;
  console.error = route;
  console.debug = route;
}
