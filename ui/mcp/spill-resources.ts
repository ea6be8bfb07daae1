// MCP resources over the session's spill directory and nothing else: `resources/list` names its
// regular files, `resources/read` serves one of them. A uri is served only when the file it opens
// (checked on the open descriptor, so no symlink or rename can redirect it) is a regular file under
// the spill directory: the rest of the state dir and of the disk answer "resource not found".
import { constants, lstatSync, realpathSync, type Dirent } from 'node:fs';
import { open, readdir, readlink } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { spillFileUri } from './call-tool-result.js';
import { INVALID_PARAMS } from './json-rpc.js';

/** MCP's code for a uri that names no resource. */
export const RESOURCE_NOT_FOUND = -32002;
/** Largest spill file served (a result holds at most 16 MiB). */
export const MAX_RESOURCE_BYTES = 16 * 1024 * 1024;
/** Most files `resources/list` names. */
export const MAX_LISTED_RESOURCES = 1_000;

/** An error answered with its own code and message (McpError would prefix "MCP error -32002: "). */
class ResourceError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const notFound = (uri: string, why: string): ResourceError =>
  new ResourceError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.slice(0, 300)} (${why})`, {
    uri: uri.slice(0, 300),
  });

/**
 * The spill directory's real path, or undefined while it does not exist (no call has spilled) or is
 * not the directory the host made (a tool with full access replaced it with a link elsewhere).
 */
function realSpillDir(spillDir: string): string | undefined {
  try {
    if (!lstatSync(spillDir).isDirectory()) return undefined;
    return realpathSync(spillDir);
  } catch {
    return undefined;
  }
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function pathOfUri(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ResourceError(
      INVALID_PARAMS,
      `Invalid params: params.uri: ${JSON.stringify(uri.slice(0, 300))} is not a URI`,
    );
  }
  if (url.protocol !== 'file:') throw notFound(uri, 'only file: URIs of spill files are served');
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new ResourceError(INVALID_PARAMS, `Invalid params: params.uri: ${(error as Error).message}`);
  }
}

export async function readSpillResource(spillDir: string, uri: string): Promise<ReadResourceResult> {
  const path = pathOfUri(uri);
  const dir = realSpillDir(spillDir);
  // A first look by name, so nothing elsewhere is even opened; the open file is what counts.
  if (dir === undefined || !(isInside(resolve(spillDir), path) || isInside(dir, path)))
    throw notFound(uri, "not in this session's spill directory");
  let file;
  try {
    // Non-blocking: a FIFO planted there must not hang the server; no final symlink is followed.
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw notFound(
      uri,
      code === 'ELOOP'
        ? 'a symbolic link is not served'
        : code === 'ENOENT'
          ? 'no such file'
          : (code ?? 'cannot be opened'),
    );
  }
  try {
    const opened = await readlink(`/proc/self/fd/${file.fd}`);
    if (!isInside(dir, opened)) throw notFound(uri, "not in this session's spill directory");
    const stats = await file.stat();
    if (!stats.isFile()) throw notFound(uri, 'not a regular file');
    if (stats.size > MAX_RESOURCE_BYTES) {
      throw new ResourceError(
        INVALID_PARAMS,
        `Invalid params: ${uri.slice(0, 300)} holds ${stats.size} bytes; resources/read serves at most ${MAX_RESOURCE_BYTES}`,
      );
    }
    const bytes = await file.readFile();
    const content = isUtf8(bytes)
      ? { uri, mimeType: 'text/plain', text: bytes.toString('utf8') }
      : { uri, mimeType: 'application/octet-stream', blob: bytes.toString('base64') };
    return { contents: [content] };
  } finally {
    await file.close();
  }
}

/** The spill directory's regular files, at most MAX_LISTED_RESOURCES of them. */
export async function listSpillResources(spillDir: string): Promise<Resource[]> {
  const dir = realSpillDir(spillDir);
  if (dir === undefined) return [];
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile())
    .slice(0, MAX_LISTED_RESOURCES)
    .map((entry) => ({ uri: spillFileUri(join(spillDir, entry.name)), name: entry.name, mimeType: 'text/plain' }));
}
