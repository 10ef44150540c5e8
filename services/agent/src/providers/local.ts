import type { ChatMessage, LocalRule } from '@platform/contracts';
import { render, renderDeep, type TemplateValues } from './templates.ts';
import {
  ProviderError,
  type CallOptions,
  type ModelProviderClient,
  type ModelRequest,
  type ModelResult,
} from './types.ts';

/**
 * The built-in deterministic provider: no network, no randomness. For the user's message it takes the
 * first rule whose `match` holds; the rule answers its `reply`, or calls its `tool` (when offered) and
 * answers its `reply` once the tool's output is back, or fails like a broken provider with `error`.
 * No rule: the `fallback`. docs/agents.md describes the language.
 */
export interface LocalConfig {
  rules: LocalRule[];
  fallback: string;
}

const textOf = (m: ChatMessage | undefined) => (typeof m?.content === 'string' ? m.content : '');
const tokens = (text: string) => Math.ceil(text.length / 4);

function matches(rule: LocalRule, message: string): boolean {
  const text = message.toLowerCase();
  const m = rule.match;
  if (!m) return true;
  if (m.exact !== undefined && text.trim() !== m.exact.toLowerCase()) return false;
  if (m.any && !m.any.some((k) => text.includes(k.toLowerCase()))) return false;
  if (m.all && !m.all.every((k) => text.includes(k.toLowerCase()))) return false;
  return true;
}

/** Tool call ids carry the rule that made them: `local_<rule>_<n>`. */
const callId = (rule: number, n: number) => `local_${rule}_${n}`;
const ruleOfCall = (id: string | undefined) => {
  const m = /^local_(\d+)_\d+$/.exec(id ?? '');
  return m ? Number(m[1]) : undefined;
};

function parseOutput(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** The answer of the local provider to a conversation (a pure function: the bench calls it directly). */
export function localComplete(config: LocalConfig, request: ModelRequest, agentName: string): ModelResult {
  const messages = request.messages;
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const values: TemplateValues = {
    message: textOf(lastUser),
    agentName,
    turn: messages.filter((m) => m.role === 'user').length,
  };
  const prompt = tokens(messages.map(textOf).join(''));
  const answer = (text: string): ModelResult => ({
    content: text,
    toolCalls: [],
    usage: { promptTokens: prompt, completionTokens: tokens(text) },
  });

  if (last?.role === 'tool') {
    const index = ruleOfCall(last.tool_call_id);
    const rule = index === undefined ? undefined : config.rules[index];
    values.toolOutput = parseOutput(textOf(last));
    return answer(render(rule?.reply ?? '{{toolOutput}}', values));
  }
  const index = config.rules.findIndex((rule) => matches(rule, textOf(lastUser)));
  const rule = config.rules[index];
  if (!rule) return answer(render(config.fallback, values));
  if (rule.error !== undefined) {
    throw new ProviderError(`local provider rule ${rule.name ?? index}: ${rule.error}`, false, 'rejected');
  }
  const offered = request.tools?.some((t) => t.function.name === rule.tool?.name);
  if (rule.tool && offered) {
    return {
      content: '',
      toolCalls: [
        {
          id: callId(index, messages.length),
          name: rule.tool.name,
          arguments: JSON.stringify(renderDeep(rule.tool.arguments, values)),
        },
      ],
      usage: { promptTokens: prompt, completionTokens: 0 },
    };
  }
  return answer(render(rule.reply ?? '', values));
}

/** Splits a reply into word-sized deltas, as a streaming model would send them. */
export function wordDeltas(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

export function localProvider(config: LocalConfig, agentName: string): ModelProviderClient {
  return {
    kind: 'local',
    async complete(request: ModelRequest, options: CallOptions = {}) {
      const result = localComplete(config, request, agentName);
      if (options.onDelta) for (const delta of wordDeltas(result.content)) options.onDelta(delta);
      return result;
    },
  };
}
