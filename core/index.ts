// moonpool's library entry: the ToolHost and the types a host needs.
export { ToolHost, type ToolInfo, type ToolStatus, type HostStats, type ToolHostEvents } from './tool-host.js';
export type { ReloadResult } from './tool-host.js';
export type { ToolHostOptions } from './host-options.js';
export {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_LOAD_TIMEOUT_MS,
  DEFAULT_AVAILABLE_TIMEOUT_MS,
  DEFAULT_RENDER_BUDGET_MS,
  DEFAULT_SESSION_MAX_AGE_DAYS,
  DEFAULT_SESSION_MAX_TOTAL_BYTES,
  DEFAULT_SESSION_SEGMENT_BYTES,
  SESSION_ID_PATTERN,
  defaultStateDir,
} from './host-options.js';
// CallResult.structured (run's `structured` table, checked against ToolInfo.outputSchema) and
// ToolInfo.annotations/outputSchema are optional fields added for MCP: older readers can ignore them.
export type { CallResult, CallStatus, CallOptions } from './call-result.js';
export type {
  Diagnostic,
  RenderView,
  ToolPermissions,
  AskQuestion,
  AskAnswer,
  AskRefusal,
} from '../shared/protocol.js';
export type { AskExchange, AskHandler } from './call-questions.js';
export type { RenderResult } from './generation.js';
export type { ParametersSchema } from './tool-definitions.js';
export type { ToolAnnotations } from './tool-annotations.js';
export type { PoolStats } from './worker-pool.js';
export { MoonpoolError, type MoonpoolErrorCode } from './errors.js';
export type { SessionEntry, SessionRecord, SessionReadout } from './session-log.js';
export { decodeMsgpack as decodeSnapshot } from './msgpack-codec.js';
export { MsgpackError } from '../shared/msgpack.js';
export { stateDirProblem, summarizeSessions, type SessionSummary } from './session-files.js';
export { pruneSessions, type SessionRetention, type PruneResult } from './session-retention.js';
export { STUCK_AFTER_MS, stuckAfterMs } from './thread-watch.js';
export { DEFAULT_MAX_INLINE_CHARS, DEFAULT_MAX_INLINE_LINES } from './output-limit.js';
export { resolveConfig, BUNDLED_CONFIG, type ResolvedConfig } from './config-path.js';
export { makeDirectory } from './make-directory.js';
// For front ends that say what was meant: the closest known name, a syntax error's likely cause.
export { closestName } from './name-suggestion.js';
// For front ends that show what a tool may touch.
export { describePermissions, FULL_ACCESS, writesNothing } from './tool-permissions.js';
export { missingCommaHint } from './syntax-hint.js';
export { CALL_STATUSES } from './session-record.js';
