// The MCP protocol versions moonpool speaks, newest first: the SDK's own list (a test checks the
// two agree), kept here so that answering `initialize` loads nothing of the SDK.
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** The version to answer a client that asked for `requested`: that one if spoken, else the newest. */
export function negotiatedVersion(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : SUPPORTED_PROTOCOL_VERSIONS[0]!;
}
