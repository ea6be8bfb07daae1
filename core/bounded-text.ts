// Texts built from what a model or a config sent (a tool name, a list of allowed values, one
// problem per argument) are cut to a size, always saying how much was left out.

/** `text`, or its first `maxChars` characters with a note of how many more there were. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)`;
}

/**
 * At most `maxItems` of `items`, each clipped to `maxItemChars`, joined by `separator`, with a
 * last entry that counts the rest of `total` (default: all items): "… and 19,990 more values".
 */
export function listWithin(
  items: readonly string[],
  limits: { maxItems: number; maxItemChars: number; separator: string; noun: string },
  total = items.length,
): string {
  const shown = items.slice(0, limits.maxItems).map((item) => clip(item, limits.maxItemChars));
  const hidden = total - shown.length;
  if (hidden > 0) shown.push(`… and ${hidden.toLocaleString('en-US')} more ${limits.noun}`);
  return shown.join(limits.separator);
}
