/**
 * Search without $text (FerretDB has none): each session stores `searchTerms`, lowercase strings that
 * a search must be a prefix of: the session id, the agent name and each of its words, each metadata
 * value (strings, numbers, booleans, in nested objects and arrays too) and each of its words. A search
 * is then one anchored regex, which MongoDB answers from a tight range of the multikey index.
 */
const maxTerms = 100;
const maxTermLength = 100;
const wordSplit = /[^\p{L}\p{N}@_+-]+/u;

function addValue(terms: Set<string>, value: string) {
  const lower = value.toLowerCase().trim().slice(0, maxTermLength);
  if (!lower) return;
  terms.add(lower);
  for (const word of lower.split(wordSplit)) if (word && word !== lower) terms.add(word);
}

function metadataValues(value: unknown, out: string[], depth = 0) {
  if (depth > 4 || value === null || value === undefined) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push(String(value));
  } else if (Array.isArray(value)) {
    for (const v of value) metadataValues(v, out, depth + 1);
  } else if (typeof value === 'object') {
    for (const v of Object.values(value as Record<string, unknown>)) metadataValues(v, out, depth + 1);
  }
}

export function searchTermsOf(session: {
  sessionId: string;
  agentName: string;
  metadata: Record<string, unknown>;
}): string[] {
  const terms = new Set<string>([session.sessionId.toLowerCase()]);
  addValue(terms, session.agentName);
  const values: string[] = [];
  metadataValues(session.metadata, values);
  for (const v of values) addValue(terms, v);
  return [...terms].slice(0, maxTerms);
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The `searchTerms` condition of a search string: an anchored, escaped, lowercase prefix. */
export function searchCondition(search: string): { $regex: string } {
  return { $regex: `^${escapeRegex(search.toLowerCase().slice(0, maxTermLength))}` };
}
