import type { z } from 'zod';
import type { ChatMessage, ChatTool as ChatToolSchema } from '@platform/contracts';

/** A function definition offered to the model (OpenAI's wire format). */
export type ChatTool = z.infer<typeof ChatToolSchema>;

/** One call of a model: the conversation so far in the OpenAI message format, and the tools offered. */
export interface ModelRequest {
  messages: ChatMessage[];
  /** Absent or empty: the model must answer in text. */
  tools?: ChatTool[];
  model: string | null;
  temperature: number;
  maxTokens: number;
  /** The logical call, for logs and the provider's idempotency (`<sessionId>:<turn>:<round>`). */
  requestId: string;
}

export interface ModelToolCall {
  id: string;
  name: string;
  /** JSON text, as the model wrote it. */
  arguments: string;
}

export interface ModelResult {
  content: string;
  toolCalls: ModelToolCall[];
  usage: { promptTokens: number; completionTokens: number };
}

export interface CallOptions {
  /** Receives the answer's text as it is produced (streaming). */
  onDelta?: (text: string) => void;
}

export interface ModelProviderClient {
  readonly kind: 'local' | 'openai';
  complete(request: ModelRequest, options?: CallOptions): Promise<ModelResult>;
}

/**
 * A failed model call. `retryable`: a timeout, 429 or 5xx (tried again with backoff); anything else
 * (credentials, a refused request, a rule's simulated error) fails the session at once.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly kind: 'timeout' | 'unavailable' | 'rejected',
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
