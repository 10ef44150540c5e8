import type { ChatMessage } from '@platform/contracts';

/**
 * The model's view of a conversation (user messages, assistant messages with their tool calls, tool
 * results: the session transcript keeps only user and agent text), kept in the session's record as
 * JSON text: a list of turns, each a list of OpenAI-format messages. It is written with the turn's
 * other changes, in the same update. Only the newest whole turns are kept (never half of a tool call
 * and its result): at most `maxMessages` messages and `maxBytes` of JSON, and always the last turn.
 */
export function contextOf(stored: string | undefined): ChatMessage[] {
  if (!stored) return [];
  return (JSON.parse(stored) as ChatMessage[][]).flat();
}

export function appendTurn(
  stored: string | undefined,
  turn: ChatMessage[],
  limits: { maxMessages: number; maxBytes: number },
): string {
  const turns = [...(stored ? (JSON.parse(stored) as ChatMessage[][]) : []), turn];
  let count = turns.reduce((n, t) => n + t.length, 0);
  let json = JSON.stringify(turns);
  while (turns.length > 1 && (count > limits.maxMessages || json.length > limits.maxBytes)) {
    count -= turns.shift()!.length;
    json = JSON.stringify(turns);
  }
  return json;
}
