// Suite files allowed to fail in moonpool while they pass natively, each with the reason (the same
// list as docs/writing-tools.md "What differs from native Lua").

export const DOCUMENTED_EXCEPTIONS: Readonly<Record<string, string>> = Object.freeze({});
