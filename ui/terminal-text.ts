// Text a tool produced, made safe for a terminal: escape sequences (CSI, OSC, and the rest),
// control characters and bidirectional embeddings, overrides and isolates are removed, tabs become
// spaces. Nothing a tool prints can move the cursor, change colours, retitle the window, ring the
// bell or show its text in another order than it holds it.

/* eslint-disable no-control-regex -- finding control characters is what this module is for */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), other ESC sequences, and C1 controls.
const ESCAPE_SEQUENCE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]?|[\x80-\x9f]/g;
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f\u202a-\u202e\u2066-\u2069]/g;

export function sanitizeLine(text: string, tabWidth = 4): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(/\t/g, ' '.repeat(tabWidth)).replace(CONTROL, '');
}

/** Splits text into lines (on \n, \r\n or a lone \r) and sanitizes each. */
export function sanitizeLines(text: string): string[] {
  return text.split(/\r?\n|\r/).map((line) => sanitizeLine(line));
}
