// The first `file:line` of a Lua error message, shortened to the file's base name.

/** `files.lua:123` out of `lua5.4: /x/files.lua:123: assertion failed!` and the like; '' when none. */
export function failureLocation(message: string): string {
  const match = /([^\s:'"]+\.lua):(\d+):/.exec(message);
  if (!match) return message.split('\n')[0]!.slice(0, 60);
  const file = match[1]!.slice(match[1]!.lastIndexOf('/') + 1);
  return `${file}:${match[2]}`;
}
