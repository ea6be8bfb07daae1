// Which request a `notifications/cancelled` the SDK's path received names, so that the direct
// path's calls of that id stop too: exactly the cancels the SDK acts on (its JSON-RPC and cancel
// schemas accept the message), so a cancel naming an id on both paths stops both or neither. One
// exception: the SDK skips a `requestId` of 0 (it tests the id for truth), the direct path does not.
import { CancelledNotificationSchema, JSONRPCNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RequestId } from './plain-requests.js';

export function cancelledRequestId(message: unknown): RequestId | undefined {
  if (
    typeof message !== 'object' ||
    message === null ||
    (message as { method?: unknown }).method !== 'notifications/cancelled'
  )
    return undefined;
  if (!JSONRPCNotificationSchema.safeParse(message).success) return undefined;
  const cancel = CancelledNotificationSchema.safeParse(message);
  return cancel.success ? cancel.data.params.requestId : undefined;
}
