// How a diagnostic names what the config wrote and what it meant, in bounded work and text:
// "did you mean …?" picks the known name closest by edit distance (a swap of neighbours is one
// edit) or one it shortens (`desc`, `params`); a value is named short in Lua's terms (`"strng"`,
// `number 5`, `a table`), so a 1 MB string costs a message of 40 characters.

/** Names longer than this are never compared: no typo of a keyword is that long. */
const MAX_COMPARED_CHARS = 64;
/** The shortest name taken for an abbreviation of a longer known one. */
const MIN_ABBREVIATION_CHARS = 4;

/** Optimal string alignment distance between `a` and `b`, or Infinity once it passes `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, beforePrevious[j - 2]! + 1);
      current[j] = best;
      rowBest = Math.min(rowBest, best);
    }
    if (rowBest > limit) return Infinity;
    beforePrevious = previous;
    previous = current;
  }
  const distance = previous[b.length]!;
  return distance > limit ? Infinity : distance;
}

/** The known name `name` most likely misspells, or undefined when none is close. */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  if (name.length > MAX_COMPARED_CHARS) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    // Edits allowed: one per four characters, at least one.
    const limit = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 4));
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase(), Math.min(limit, bestDistance));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (bestDistance !== Infinity) return best === name ? undefined : best;
  // A shortening, or a shortening made plural (`params`, `props`).
  const stems = [name, name.slice(0, -1)]
    .map((stem) => stem.toLowerCase())
    .filter((stem) => stem.length >= MIN_ABBREVIATION_CHARS);
  for (const candidate of known) if (stems.some((stem) => candidate.toLowerCase().startsWith(stem))) return candidate;
  return undefined;
}

const SHOWN_STRING_CHARS = 40;

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string')
    return JSON.stringify(value.length > SHOWN_STRING_CHARS ? `${value.slice(0, SHOWN_STRING_CHARS)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return 'a table';
}

const SHOWN_KEY_CHARS = 60;

/** `text` with its control characters escaped (`\n`, `\u001b`), so a diagnostic stays one line and draws nothing. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (char) =>
    char === '\n' ? '\\n' : char === '\t' ? '\\t' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A key whole when short, else its start and its length. */
export function cutKey(key: string): string {
  return key.length > SHOWN_KEY_CHARS
    ? `${key.slice(0, SHOWN_KEY_CHARS)}… (${key.length.toLocaleString('en-US')} characters)`
    : key;
}

/** A key as a message shows it: cut when long, control characters escaped. */
export function shownKey(key: string): string {
  return printable(cutKey(key));
}
