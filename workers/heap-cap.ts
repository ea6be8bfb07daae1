// The Lua heap cap: an allocator that replaces wasmoon's (same bookkeeping) and counts the
// allocations it refused. Lua raises a memory error both when the cap refuses an allocation and
// when a tool raises the string 'not enough memory' itself; only this count tells them apart.

import type { LuaRawApi } from './lua-stack.js';

export class HeapCap {
  /** Allocations refused since the state was created. */
  refusals = 0;
  /** Bytes the Lua state holds. */
  usedBytes: number;

  /** Takes over from wasmoon's allocator, which has counted `usedBytes` so far. */
  constructor(api: LuaRawApi, L: number, usedBytes: number, limitBytes: number) {
    this.usedBytes = usedBytes;
    const allocator = api.addFunction((_userData, pointer, oldSize, newSize) => {
      if (newSize === 0) {
        if (pointer) {
          this.usedBytes -= oldSize;
          api._free(pointer);
        }
        return 0;
      }
      const used = this.usedBytes + (pointer ? newSize - oldSize : newSize);
      if (newSize > oldSize && used > limitBytes) {
        this.refusals++;
        return 0;
      }
      const reallocated = api._realloc(pointer, newSize);
      if (reallocated) this.usedBytes = used;
      else this.refusals++;
      return reallocated;
    }, 'iiiii');
    api._lua_setallocf(L, allocator, 0);
  }
}
